/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bus guard on a socketpair, with a real event loop: the idle timeout (a peer that sends
 * messages stays, one that stops goes), replies handed back whole and in order through the
 * queue, and the backlog it reports to its owner. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>
#include <unistd.h>
#include <cmocka.h>

#include "bus-guard.h"
#include "mglrud/shared/macro.h"
#include "mglrud/shared/time.h"

struct peer {
        sd_event *e;
        struct bus_guard *g;
        int client_fd, daemon_fd;
        char reason[128];
        bool closed;
        size_t backlog_calls, max_backlog;
};

static void on_closed(struct bus_guard *g, const char *reason, void *userdata) {
        struct peer *p = userdata;
        p->closed = true;
        snprintf(p->reason, sizeof p->reason, "%s", reason ?: "");
}

static void on_backlog(struct bus_guard *g, void *userdata) {
        struct peer *p = userdata;
        p->backlog_calls++;
        p->max_backlog = MAX(p->max_backlog, bus_guard_backlog(g));
}

static void peer_open(struct peer *p) {
        int pair[2];
        *p = (struct peer) {};
        assert_int_equal(sd_event_new(&p->e), 0);
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
        p->client_fd = pair[0];
        assert_int_equal(bus_guard_new(p->e, pair[1], on_closed, p, &p->g, &p->daemon_fd), 0);
        bus_guard_set_backlog_callback(p->g, on_backlog);
}

static void peer_close(struct peer *p) {
        bus_guard_free(p->g);
        close(p->client_fd);
        close(p->daemon_fd);
        sd_event_unref(p->e);
}

/* Runs the loop for usec (or until the guard closed). */
static void run_for(struct peer *p, uint64_t usec) {
        uint64_t end = now_monotonic_usec() + usec;
        while (!p->closed && now_monotonic_usec() < end)
                assert_true(sd_event_run(p->e, 10000) >= 0);
}

static void send_all(int fd, const void *data, size_t n) {
        assert_int_equal(send(fd, data, n, MSG_NOSIGNAL), (ssize_t) n);
}

static const char sasl[] = "\0AUTH ANONYMOUS\r\nBEGIN\r\n";

/* A method call with no header fields and no body: the 16 bytes of the fixed header. */
static const uint8_t empty_call[16] = { 'l', 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0 };

static void test_idle_timeout(void **state) {
        struct peer p;
        peer_open(&p);
        assert_int_equal(bus_guard_set_idle_timeout(p.g, 300 * USEC_PER_MSEC), 0);
        send_all(p.client_fd, sasl, sizeof sasl - 1);
        /* A message every 100 ms for a second: never idle for 300 ms. */
        for (int i = 0; i < 10; i++) {
                send_all(p.client_fd, empty_call, sizeof empty_call);
                run_for(&p, 100 * USEC_PER_MSEC);
                assert_string_equal(p.reason, "");
                assert_false(p.closed);
        }
        /* Then nothing: dropped after 300 ms, well before the 5 s deadlines. */
        uint64_t t0 = now_monotonic_usec();
        run_for(&p, 3 * USEC_PER_SEC);
        assert_true(p.closed);
        assert_true(now_monotonic_usec() - t0 < 2 * USEC_PER_SEC);
        assert_string_equal(p.reason, "idle: no message for 0.3 s");
        /* What the peer sent went through to sd-bus's side, unchanged. */
        char buf[512];
        ssize_t n = recv(p.daemon_fd, buf, sizeof buf, MSG_DONTWAIT);
        assert_int_equal(n, sizeof sasl - 1 + 10 * 16);
        assert_memory_equal(buf, sasl, sizeof sasl - 1);
        peer_close(&p);
}

/* Without an idle timeout (root's connections) a quiet peer stays. */
static void test_no_idle_timeout(void **state) {
        struct peer p;
        peer_open(&p);
        send_all(p.client_fd, sasl, sizeof sasl - 1);
        run_for(&p, 500 * USEC_PER_MSEC);
        assert_false(p.closed);
        peer_close(&p);
}

/* 6 MiB of replies, read by the peer 4 KiB at a time while sd-bus writes more: every byte in
 * order, and the guard's backlog reported as it grew. */
static void test_replies_in_order(void **state) {
        const size_t total = 6U * 1024 * 1024;
        _cleanup_free_ uint8_t *data = malloc(total);
        _cleanup_free_ uint8_t *got = malloc(total);
        size_t sent = 0, received = 0;
        struct peer p;

        assert_non_null(data);
        assert_non_null(got);
        for (size_t i = 0; i < total; i++)
                data[i] = (uint8_t) (i * 7 + i / 4099);
        peer_open(&p);
        while (received < total) {
                if (sent < total) {
                        ssize_t n = send(p.daemon_fd, data + sent, MIN(total - sent, 65536U),
                                         MSG_DONTWAIT | MSG_NOSIGNAL);
                        if (n > 0)
                                sent += (size_t) n;
                }
                assert_true(sd_event_run(p.e, 0) >= 0);
                assert_false(p.closed);
                /* The peer reads less than sd-bus writes: the backlog builds up. */
                if (sent > total / 2 || sent == total) {
                        ssize_t n = recv(p.client_fd, got + received, MIN(total - received, 4096U),
                                         MSG_DONTWAIT);
                        if (n > 0)
                                received += (size_t) n;
                }
        }
        assert_memory_equal(got, data, total);
        assert_true(p.backlog_calls > 0);
        assert_true(p.max_backlog > 1024 * 1024);
        assert_true(p.max_backlog < BUS_GUARD_MAX_BACKLOG);
        assert_int_equal(bus_guard_backlog(p.g), 0);
        peer_close(&p);
}

/* The owner closes the guard from the backlog callback (the budget of all peers): what the peer
 * left unread is freed at once. */
static void on_backlog_close(struct bus_guard *g, void *userdata) {
        if (bus_guard_backlog(g) > 1024 * 1024)
                bus_guard_close(g, "over budget");
}

static void test_close_frees_backlog(void **state) {
        static uint8_t chunk[65536];
        struct peer p;
        peer_open(&p);
        bus_guard_set_backlog_callback(p.g, on_backlog_close);
        for (int i = 0; i < 200 && !p.closed; i++) {
                (void) send(p.daemon_fd, chunk, sizeof chunk, MSG_DONTWAIT | MSG_NOSIGNAL);
                assert_true(sd_event_run(p.e, 0) >= 0);
        }
        assert_true(p.closed);
        assert_string_equal(p.reason, "over budget");
        assert_int_equal(bus_guard_backlog(p.g), 0);
        peer_close(&p);
}

/* A peer that reads nothing: the replies the kernel holds in its socket count in the backlog
 * (else 64 such peers pin ~13 MiB outside the budget of all), and the kernel holds no more than
 * the guard's send buffer allows. */
static void test_kernel_queue_counted(void **state) {
        static uint8_t chunk[65536];
        const size_t total = 2U * 1024 * 1024;
        size_t sent = 0;
        struct peer p;
        peer_open(&p);
        while (sent < total) {
                ssize_t n = send(p.daemon_fd, chunk, MIN(sizeof chunk, total - sent),
                                 MSG_DONTWAIT | MSG_NOSIGNAL);
                if (n > 0)
                        sent += (size_t) n;
                assert_true(sd_event_run(p.e, 0) >= 0);
                assert_false(p.closed);
        }
        run_for(&p, 50000);
        int in_kernel = 0;
        assert_int_equal(ioctl(p.client_fd, SIOCINQ, &in_kernel), 0);
        assert_true(in_kernel > 0);
        assert_true((size_t) in_kernel <= 2U * BUS_GUARD_PEER_SNDBUF);
        /* Every byte sd-bus wrote is somewhere the peer has not read: all of it is counted. */
        assert_true(bus_guard_backlog(p.g) >= total);
        assert_true(p.max_backlog >= total - sizeof chunk);
        peer_close(&p);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_idle_timeout),
                cmocka_unit_test(test_no_idle_timeout),
                cmocka_unit_test(test_replies_in_order),
                cmocka_unit_test(test_close_frees_backlog),
                cmocka_unit_test(test_kernel_queue_counted),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
