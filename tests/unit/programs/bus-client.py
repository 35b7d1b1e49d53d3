#!/usr/bin/python3
# A raw D-Bus peer of mglrud's private socket for test-bus-load.sh, run as an unprivileged user:
#   bus-client.py SOCKET pin CONNECTIONS CALLS METHOD HOLD  pipeline CALLS without reading
#   bus-client.py SOCKET flood CONNECTIONS SECONDS METHOD   call and read, again and again
#   bus-client.py SOCKET hold CONNECTIONS SECONDS           authenticated, then quiet
#   bus-client.py SOCKET begin-same-write                   SASL, BEGIN and a call in one write
import socket, struct, sys, threading, time

path, mode = sys.argv[1], sys.argv[2]
SASL = b"\0AUTH ANONYMOUS\r\nDATA\r\n"


def call(serial, member):
    fields = b""
    for code, value in ((1, "/org/mglrud/Manager1"), (2, "org.mglrud.Manager1"), (3, member)):
        fields += b"\0" * (-len(fields) % 8)
        v = value.encode()
        fields += struct.pack("<B", code) + (b"\x01o\0" if code == 1 else b"\x01s\0")
        fields += struct.pack("<I", len(v)) + v + b"\0"
    msg = struct.pack("<cBBBIII", b"l", 1, 0, 1, 0, serial, len(fields)) + fields
    return msg + b"\0" * (-len(msg) % 8)


def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(SASL)
    line = b""
    while b"OK " not in line or not line.endswith(b"\r\n"):  # DATA, then OK <guid>
        d = s.recv(256)
        if not d:
            raise OSError("closed during SASL")
        line += d
    s.sendall(b"BEGIN\r\n")
    return s


def read_exact(s, n):
    buf = bytearray()
    while len(buf) < n:
        d = s.recv(min(n - len(buf), 1 << 20))
        if not d:
            raise OSError("closed")
        buf += d
    return bytes(buf)


def read_reply(s):
    head = read_exact(s, 16)
    body, fields = struct.unpack("<I", head[4:8])[0], struct.unpack("<I", head[12:16])[0]
    read_exact(s, (fields + 7) // 8 * 8 + body)
    return head[1]


if mode == "pin":
    n, calls, member, hold = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], float(sys.argv[6])
    socks = [connect() for _ in range(n)]
    batch = b"".join(call(k + 1, member) for k in range(calls))
    for s in socks:
        s.sendall(batch)
    time.sleep(hold)
    print("pin: %d connections, %d calls each" % (n, calls))
elif mode == "flood":
    n, seconds, member = int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
    count = [0] * n
    def loop(i):
        s, end, serial = connect(), time.monotonic() + seconds, 1
        while time.monotonic() < end:
            s.sendall(call(serial, member))
            assert read_reply(s) == 2, "not a method return"
            serial += 1
            count[i] += 1
    ts = [threading.Thread(target=loop, args=(i,)) for i in range(n)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    print("flood: %d %s calls answered" % (sum(count), member))
elif mode == "hold":
    n, seconds = int(sys.argv[3]), float(sys.argv[4])
    socks = [connect() for _ in range(n)]
    print("hold: %d connections" % len(socks), flush=True)
    time.sleep(seconds)
elif mode == "begin-same-write":
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.settimeout(3)
    s.sendall(b"\0AUTH ANONYMOUS\r\nBEGIN\r\n" + call(1, "GetStatus"))
    got = b""
    try:
        while b"l\x02" not in got:
            d = s.recv(4096)
            if not d:
                break
            got += d
    except socket.timeout:
        pass
    print("begin-same-write: " + ("answered" if b"l\x02" in got else "no answer in 3 s"))
