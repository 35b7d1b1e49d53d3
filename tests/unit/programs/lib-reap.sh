# Sourced by the tests that start mglrud or mglructl with --runtime-dir DIR: reap_strays DIR
# waits up to 10 s for every process whose command line names that runtime directory to end,
# then kills the rest with SIGKILL and says so. A mglructl top under tmux, SIGHUPed by
# kill-server, was seen spinning on a core at exit in the sanitizer build (its pty gone, ppid 1)
# for the rest of the suite, which slowed every VM scenario after it; no test may leave one.
reap_strays() {
        local pat="--runtime-dir $1( |\$)" left
        for _ in $(seq 100); do
                pgrep -f -- "$pat" >/dev/null || return 0
                sleep 0.1
        done
        left=$(pgrep -af -- "$pat" || true)
        [[ -n $left ]] || return 0
        echo "reap_strays: killing what is left of $1: $left" >&2
        pkill -KILL -f -- "$pat" || true
}
