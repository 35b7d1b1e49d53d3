/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mc-zipf: a memcached client with a Zipf-skewed key popularity, for the real-application
 * benchmark (issue 24; tests/vm/scenarios/bench-app-memcached.sh).
 *
 *   mc-zipf [--host 127.0.0.1] [--port 11211] [--keys N] [--value-size B] [--zipf S]
 *           [--duration S] [--report S] [--seed N] [--set-ratio R] [--depth D] [--no-fill]
 *
 * Fill phase: sets every key k0..k(N-1) (value B bytes, default 1000; N default 280,000, so the
 * server holds ~300 MiB) in a random order, pipelined 64 at a time, so that memcached's slab
 * allocator scatters the popular keys over its pages; prints "event=ready fill_s=... keys=N".
 * Timed phase: for --duration seconds (default 240), on one connection, rounds of --depth
 * requests (default 1, at most 256) written at once, their replies read before the next round
 * (many clients' requests, as a busy server sees them): a get of key k(rank) with rank drawn from
 * Zipf(S) over N (default S 0.99; rank 0 is the most popular), or with probability --set-ratio
 * (default 0) a set of it. Every --report seconds
 * (default 5) and at the end it prints
 *   event=report t_s=T ops=N ops_per_s=R p50_us=L p99_us=L max_us=L misses=N
 *   event=final duration_s=T ops=N ops_per_s=R p50_us=L p99_us=L max_us=L misses=N
 * (latency: the round written to this request's reply parsed, from wl-common's histogram, within
 * 1/64 of the true value).
 * Exit status: 0; 1 on a connection or protocol error; 2 on usage errors. */
#include "mc-reply.h"
#include "wl-common.h"
#include "zipf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FILL_BATCH 64
#define MAX_DEPTH 256

struct options {
	const char *host;
	int port;
	uint64_t keys;
	size_t value_size;
	double zipf_s;
	double duration_s, report_s, set_ratio;
	unsigned depth;
	uint64_t seed;
	bool fill;
};

struct conn {
	int fd;
	char buf[1 << 20];
	size_t len;
};

/* The latencies of a window or of the whole run, and the gets that missed. */
struct hist {
	struct wl_hist lat;
	uint64_t misses;
};

static void print_stats(const char *event, const char *tkey, double t, double span,
			const struct hist *h)
{
	printf("event=%s %s=%.1f ops=%" PRIu64 " ops_per_s=%.0f p50_us=%.1f p99_us=%.1f "
	       "max_us=%.1f misses=%" PRIu64 "\n", event, tkey, t, h->lat.count,
	       span > 0 ? (double) h->lat.count / span : 0,
	       (double) wl_hist_quantile(&h->lat, 0.50) / 1e3,
	       (double) wl_hist_quantile(&h->lat, 0.99) / 1e3, (double) h->lat.max_ns / 1e3,
	       h->misses);
	fflush(stdout);
}

/* Returns 0 once all of buf is sent, -errno otherwise. */
static int send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		buf += n;
		len -= (size_t) n;
	}
	return 0;
}

/* Reads until one reply is complete; returns 0 with *ret set, -EBADMSG, -EPIPE or -errno. */
static int read_reply(struct conn *c, struct mc_reply *ret)
{
	for (;;) {
		int r = mc_reply_parse(c->buf, c->len, ret);
		ssize_t n;

		if (r > 0) {
			memmove(c->buf, c->buf + r, c->len - (size_t) r);
			c->len -= (size_t) r;
			return 0;
		}
		if (r < 0)
			return r;
		if (c->len == sizeof c->buf)
			return -EBADMSG;
		n = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		c->len += (size_t) n;
	}
}

/* Returns a connected TCP socket with Nagle off, or -errno. */
static int connect_to(const char *host, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
	int fd, one = 1;

	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return -EINVAL;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

/* Appends "set k<key> 0 0 <len>\r\n<value>\r\n" to out at *pos; returns false when it does not
 * fit in cap. */
static bool put_set(char *out, size_t cap, size_t *pos, uint64_t key, const char *value,
		    size_t len)
{
	int n = snprintf(out + *pos, cap - *pos, "set k%" PRIu64 " 0 0 %zu\r\n", key, len);

	if (n < 0 || *pos + (size_t) n + len + 2 > cap)
		return false;
	*pos += (size_t) n;
	memcpy(out + *pos, value, len);
	memcpy(out + *pos + len, "\r\n", 2);
	*pos += len + 2;
	return true;
}

/* Sets every key once in a random order (Fisher-Yates), FILL_BATCH requests per write. Returns
 * 0 or a negative errno. */
static int fill(struct conn *c, const struct options *o, const char *value, uint64_t *rng)
{
	size_t cap = FILL_BATCH * (o->value_size + 64);
	char *out = malloc(cap);
	uint64_t *order = malloc(o->keys * sizeof *order);
	int r = 0;

	if (!out || !order) {
		free(out);
		free(order);
		return -ENOMEM;
	}
	for (uint64_t k = 0; k < o->keys; k++)
		order[k] = k;
	for (uint64_t k = o->keys - 1; k > 0; k--) {
		uint64_t j = rng_next(rng) % (k + 1), t = order[k];

		order[k] = order[j];
		order[j] = t;
	}
	for (uint64_t k = 0; k < o->keys && r == 0; k += FILL_BATCH) {
		uint64_t end = k + FILL_BATCH < o->keys ? k + FILL_BATCH : o->keys;
		size_t pos = 0;
		struct mc_reply rep;

		for (uint64_t i = k; i < end; i++)
			put_set(out, cap, &pos, order[i], value, o->value_size);
		r = send_all(c->fd, out, pos);
		for (uint64_t i = k; i < end && r == 0; i++) {
			r = read_reply(c, &rep);
			if (r == 0 && rep.kind != MC_STORED)
				r = -EIO;
		}
	}
	free(out);
	free(order);
	return r;
}

/* One round of the timed phase: o->depth requests (a get of a Zipf-drawn key, or a set with
 * probability o->set_ratio) written at once, then their replies read in order; each one's
 * latency (the write to its reply parsed) goes into both histograms. Returns 0 or a negative
 * errno (-EIO for a reply that does not answer its request). */
static int round_trip(struct conn *c, const struct options *o, const struct zipf *z,
		      const char *value, char *out, size_t cap, uint64_t *rng, struct hist *window,
		      struct hist *total)
{
	bool set[MAX_DEPTH];
	size_t pos = 0;
	double t0;
	int r;

	for (unsigned i = 0; i < o->depth; i++) {
		uint64_t key = zipf_rank(z, rng_unit(rng));

		set[i] = o->set_ratio > 0 && rng_unit(rng) < o->set_ratio;
		if (set[i])
			put_set(out, cap, &pos, key, value, o->value_size);
		else
			pos += (size_t) snprintf(out + pos, cap - pos, "get k%" PRIu64 "\r\n", key);
	}
	t0 = wl_now();
	r = send_all(c->fd, out, pos);
	for (unsigned i = 0; i < o->depth && r == 0; i++) {
		struct mc_reply rep;
		uint64_t ns;

		r = read_reply(c, &rep);
		if (r < 0)
			break;
		if (rep.kind == MC_ERROR || (set[i] && rep.kind != MC_STORED) ||
		    (!set[i] && rep.kind != MC_HIT && rep.kind != MC_MISS) ||
		    (rep.kind == MC_HIT && rep.value_len != o->value_size))
			return -EIO;
		ns = (uint64_t) ((wl_now() - t0) * 1e9);
		wl_hist_add(&window->lat, ns);
		wl_hist_add(&total->lat, ns);
		if (rep.kind == MC_MISS) {
			window->misses++;
			total->misses++;
		}
	}
	return r;
}

/* Runs the timed phase; returns 0 or a negative errno. */
static int timed(struct conn *c, const struct options *o, const char *value, uint64_t *rng)
{
	static struct hist window, total;
	size_t cap = o->depth * (o->value_size + 64);
	char *out = malloc(cap);
	struct zipf z;
	double start, next;
	int r = zipf_init(&z, o->keys, o->zipf_s);

	if (r < 0 || !out) {
		free(out);
		zipf_free(&z);
		return r < 0 ? r : -ENOMEM;
	}
	start = wl_now();
	next = start + o->report_s;
	while (r == 0) {
		double t = wl_now();

		if (t >= next || t - start >= o->duration_s) {
			print_stats("report", "t_s", t - start, t - (next - o->report_s), &window);
			memset(&window, 0, sizeof window);
			next += o->report_s;
			if (t - start >= o->duration_s)
				break;
		}
		r = round_trip(c, o, &z, value, out, cap, rng, &window, &total);
	}
	if (r == 0)
		print_stats("final", "duration_s", wl_now() - start, wl_now() - start, &total);
	free(out);
	zipf_free(&z);
	return r;
}

/* Returns the integer of option opt (wl_parse_u64(), which dies on a malformed one), at most
 * cap: a value past the range then fails the range check instead of wrapping into it. */
static uint64_t parse_capped(const char *opt, const char *arg, uint64_t cap)
{
	uint64_t v = wl_parse_u64(opt, arg);

	return v < cap ? v : cap;
}

static int usage(void)
{
	fprintf(stderr, "usage: mc-zipf [--host IP] [--port N] [--keys N] [--value-size B] "
			"[--zipf S] [--duration S] [--report S] [--seed N] [--set-ratio R] "
			"[--depth D] [--no-fill]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "host", required_argument, NULL, 'h' },
		{ "port", required_argument, NULL, 'p' },
		{ "keys", required_argument, NULL, 'k' },
		{ "value-size", required_argument, NULL, 'v' },
		{ "zipf", required_argument, NULL, 'z' },
		{ "duration", required_argument, NULL, 'd' },
		{ "report", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "set-ratio", required_argument, NULL, 'w' },
		{ "depth", required_argument, NULL, 'D' },
		{ "no-fill", no_argument, NULL, 'n' },
		{ 0 }
	};
	struct options o = { .host = "127.0.0.1", .port = 11211, .keys = 280000, .value_size = 1000,
			     .zipf_s = 0.99, .duration_s = 240, .report_s = 5, .seed = 24,
			     .depth = 1, .fill = true };
	static struct conn c;
	uint64_t rng;
	char *value;
	double t0;
	int opt, r;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h': o.host = optarg; break;
		case 'p': o.port = (int) parse_capped("--port", optarg, 65536); break;
		case 'k': o.keys = wl_parse_u64("--keys", optarg); break;
		case 'v': o.value_size = wl_parse_u64("--value-size", optarg); break;
		case 'z': o.zipf_s = wl_parse_double("--zipf", optarg); break;
		case 'd': o.duration_s = wl_parse_double("--duration", optarg); break;
		case 'r': o.report_s = wl_parse_double("--report", optarg); break;
		case 's': o.seed = wl_parse_u64("--seed", optarg); break;
		case 'w': o.set_ratio = wl_parse_double("--set-ratio", optarg); break;
		case 'D': o.depth = (unsigned) parse_capped("--depth", optarg, MAX_DEPTH + 1); break;
		case 'n': o.fill = false; break;
		default: return usage();
		}
	}
	if (optind != argc || o.depth == 0 || o.depth > MAX_DEPTH || o.keys == 0 || o.value_size == 0 || o.value_size > (1 << 19) ||
	    o.port <= 0 || o.port > 65535 || !(o.report_s > 0) || !(o.duration_s > 0))
		return usage();
	value = malloc(o.value_size);
	if (!value)
		return 1;
	memset(value, 'v', o.value_size);
	rng = o.seed;
	c.fd = connect_to(o.host, o.port);
	if (c.fd < 0) {
		fprintf(stderr, "mc-zipf: connect %s:%d: %s\n", o.host, o.port, strerror(-c.fd));
		return 1;
	}
	t0 = wl_now();
	r = o.fill ? fill(&c, &o, value, &rng) : 0;
	if (r < 0) {
		fprintf(stderr, "mc-zipf: fill: %s\n", strerror(-r));
		return 1;
	}
	printf("event=ready fill_s=%.1f keys=%" PRIu64 " value_size=%zu zipf=%.2f\n", wl_now() - t0,
	       o.keys, o.value_size, o.zipf_s);
	fflush(stdout);
	r = timed(&c, &o, value, &rng);
	if (r < 0) {
		fprintf(stderr, "mc-zipf: %s\n", r == -EIO ? "unexpected reply" : strerror(-r));
		return 1;
	}
	close(c.fd);
	free(value);
	return 0;
}
