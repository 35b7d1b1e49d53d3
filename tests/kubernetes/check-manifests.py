#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks etc/kubernetes/mglrud.yaml against the Kubernetes API schema, as far as Debian's
packages allow without a cluster: yamllint (Debian's yamllint) for the YAML itself, then every
document against the models of the Kubernetes Python client (Debian's python3-kubernetes,
generated from the API's OpenAPI schema): unknown fields, wrong types and missing required
fields fail. Then what the schema cannot see: the ConfigMap's mglrud.conf passes
`mglrud --check-config`, the DaemonSet's mounts match the configuration's CgroupRoot= and
DebugfsRoot=, the Prometheus annotations match the metrics sidecar and file, and the
Containerfile installs the package on Debian 12 and runs the binary the package installs.

Usage: check-manifests.py SOURCE_ROOT MGLRUD_BINARY. Exit 77 (skip) without the packages."""
import os
import re
import subprocess
import sys
import tempfile

try:
    import yaml
    import kubernetes.client
    from kubernetes.client import ApiClient
except ImportError as e:
    print(f"SKIP: {e} (apt-get install python3-yaml python3-kubernetes)")
    sys.exit(77)

errors = []


def model_of(doc):
    version = doc.get("apiVersion", "")
    group, _, ver = version.rpartition("/")
    name = ver.capitalize() + doc.get("kind", "")
    cls = getattr(kubernetes.client, name, None)
    if cls is None:
        errors.append(f"{doc.get('kind')}: no model {name} for apiVersion {version}")
    return cls


def check_fields(value, typ, where):
    """Every key of value must be a field of the model type typ, with a value of its type."""
    if typ.startswith("list["):
        if not isinstance(value, list):
            errors.append(f"{where}: expected a list, got {type(value).__name__}")
            return
        for i, v in enumerate(value):
            check_fields(v, typ[5:-1], f"{where}[{i}]")
    elif typ.startswith("dict("):
        if not isinstance(value, dict):
            errors.append(f"{where}: expected a map, got {type(value).__name__}")
            return
        inner = typ[5:-1].split(", ", 1)[1]
        for k, v in value.items():
            check_fields(v, inner, f"{where}.{k}")
    elif typ in ("str", "datetime", "date"):
        if not isinstance(value, str):
            errors.append(f"{where}: expected a string, got {value!r}")
    elif typ == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            errors.append(f"{where}: expected an integer, got {value!r}")
    elif typ == "bool":
        if not isinstance(value, bool):
            errors.append(f"{where}: expected a boolean, got {value!r}")
    elif typ == "object":
        pass  # IntOrString, quantities, raw extensions
    else:
        cls = getattr(kubernetes.client, typ)
        if not isinstance(value, dict):
            errors.append(f"{where}: expected a {typ} object, got {value!r}")
            return
        fields = {json: py for py, json in cls.attribute_map.items()}
        for k, v in value.items():
            if k not in fields:
                errors.append(f"{where}: unknown field {k!r} for {typ}")
                continue
            check_fields(v, cls.openapi_types[fields[k]], f"{where}.{k}")


def main():
    root, mglrud = sys.argv[1], sys.argv[2]
    kdir = os.path.join(root, "etc", "kubernetes")
    manifest = os.path.join(kdir, "mglrud.yaml")

    lint = subprocess.run(["yamllint", "-f", "parsable", "-d",
                           "{extends: default, rules: {line-length: {max: 100}}}", manifest],
                          capture_output=True, text=True)
    if lint.returncode != 0 or lint.stdout:
        errors.append("yamllint:\n" + lint.stdout + lint.stderr)

    docs = [d for d in yaml.safe_load_all(open(manifest)) if d is not None]
    api = ApiClient()
    by_kind = {}
    for d in docs:
        cls = model_of(d)
        if cls is None:
            continue
        where = f"{d['kind']}/{d.get('metadata', {}).get('name')}"
        check_fields(d, cls.__name__, where)
        try:  # required fields and the client's own type conversion
            api._ApiClient__deserialize(d, cls.__name__)
        except (ValueError, TypeError) as e:
            errors.append(f"{where}: {e}")
        by_kind[d["kind"]] = d
    for kind in ("Namespace", "ConfigMap", "DaemonSet"):
        if kind not in by_kind:
            errors.append(f"no {kind} in {manifest}")
    if errors:
        return

    # The ConfigMap's configuration loads with mglrud's own parser.
    conf = by_kind["ConfigMap"]["data"]["mglrud.conf"]
    with tempfile.NamedTemporaryFile("w", suffix=".conf") as f:
        f.write(conf)
        f.flush()
        r = subprocess.run([mglrud, "--check-config", "--config", f.name,
                            "--config-dir", "/nonexistent"], capture_output=True, text=True)
        if r.returncode != 0 or "warning" in r.stderr:
            errors.append(f"mglrud --check-config on the ConfigMap: {r.stderr}")
    for q in ("besteffort", "burstable", "guaranteed"):
        if f"[Pod:{q}]" not in conf:
            errors.append(f"the ConfigMap has no [Pod:{q}] (the documented QoS mapping)")
    if not re.search(r"\[Pod:guaranteed\]\s*\nMode=advise", conf):
        errors.append("Guaranteed pods must be advise only")

    spec = by_kind["DaemonSet"]["spec"]["template"]["spec"]
    daemon = spec["containers"][0]
    sc = daemon["securityContext"]
    if sc.get("privileged") is not False or "ALL" not in sc["capabilities"]["drop"]:
        errors.append("the daemon container must not be privileged and must drop ALL capabilities")
    mounts = {m["mountPath"]: m["name"] for m in daemon["volumeMounts"]}
    host = {v["name"]: v["hostPath"]["path"] for v in spec["volumes"] if "hostPath" in v}
    for key, hostpath in (("CgroupRoot", "/sys/fs/cgroup"), ("DebugfsRoot", "/sys/kernel/debug")):
        m = re.search(rf"^{key}=(\S+)", conf, re.M)
        if not m or host.get(mounts.get(m.group(1))) != hostpath:
            errors.append(f"{key}= is not the mount of the host's {hostpath}")
    ann = by_kind["DaemonSet"]["spec"]["template"]["metadata"]["annotations"]
    sidecar = spec["containers"][1]
    ports = [p["containerPort"] for p in sidecar.get("ports", [])]
    if int(ann["prometheus.io/port"]) not in ports:
        errors.append("prometheus.io/port is not a port of the metrics sidecar")
    metrics_arg = [a for a in daemon["args"] if a.startswith("--metrics-file=")]
    served = sidecar["command"][sidecar["command"].index("-h") + 1]
    if not metrics_arg or metrics_arg[0].split("=", 1)[1] != served + ann["prometheus.io/path"]:
        errors.append("prometheus.io/path is not the file --metrics-file= writes")

    cf = open(os.path.join(kdir, "Containerfile")).read()
    if not re.search(r"^FROM debian:12$", cf, re.M):
        errors.append("the Containerfile is not based on debian:12")
    if "apt-get install -y --no-install-recommends /tmp/mglrud_*.deb" not in cf:
        errors.append("the Containerfile does not install the mglrud package")
    if 'ENTRYPOINT ["/usr/sbin/mglrud"]' not in cf:
        errors.append("the Containerfile's entry point is not the packaged /usr/sbin/mglrud")


if __name__ == "__main__":
    main()
    for e in errors:
        print("FAIL:", e)
    if errors:
        sys.exit(1)
    print("etc/kubernetes: yamllint clean, every document valid for the Kubernetes "
          f"{kubernetes.__version__} client's models, configuration and wiring consistent")
