/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The idle-age profile, the savings forecast and the re-access rate: rows and their flags, the
 * horizon, one idle model with the tiering controller (the profile at T is the decision's cold
 * estimate, the forecast is what the decision evicts), and the re-access rate on a simulated
 * MGLRU with a cold, a warm and a hot set. */
#include "mglrud/policy/idle-profile.h"
#include "policy-test.h"

#define MIN_ (60 * SEC)

/* 4 generations, ages 900/600/300/100 s: idle ≥ 600, 300, 100 s and unknown. */
static void four_gens(struct lrugen_lruvec *v, uint64_t memcg) {
        lruvec_fill(v, memcg, 0, 10, 4, (uint32_t[]) { 900, 600, 300, 100 },
                    (uint64_t[]) { 50000, 20000, 1000, 500 }, (uint64_t[]) { 10000, 5000, 1000, 500 });
}

static const struct idle_profile_row *row_at(const struct idle_profile *p, uint64_t t) {
        for (size_t i = 0; i < p->n_rows; i++)
                if (p->rows[i].idle_usec == t)
                        return &p->rows[i];
        fail_msg("no row at %llu us", (unsigned long long) t);
        return NULL;
}

/* What a cgroup keeps of lruvec v read at now. */
static struct idle_gens kept(const struct lrugen_lruvec *v, uint64_t now) {
        struct idle_gens g;

        assert_int_equal(idle_gens_take(v, NULL, now, TEST_PAGE_SIZE, &g), 0);
        return g;
}

/* Accounts the interval from one lruvec's kept generations prev at prev_usec to the lruvec cur
 * at cur_usec, reclaimed pages taken meanwhile. Returns whether it was used. */
static bool account(struct idle_risk *r, const struct idle_gens *prev, uint64_t prev_usec,
                    const struct lrugen_lruvec *cur, uint64_t cur_usec, uint64_t reclaimed) {
        const struct idle_interval iv = { .prev = prev, .n_prev = 1, .prev_usec = prev_usec,
                                          .cur = cur, .n_cur = 1, .cur_usec = cur_usec,
                                          .reclaimed_pages = reclaimed };
        return idle_risk_account(r, &iv, TEST_PAGE_SIZE);
}

static void test_ladder_one_lruvec(void **unused) {
        struct lrugen_lruvec v;
        struct idle_profile p;

        four_gens(&v, 42);
        assert_int_equal(idle_profile_compute(&v, 1, NULL, 1000 * SEC, TEST_PAGE_SIZE,
                                              idle_ladder_default_usec, IDLE_LADDER_DEFAULT_N, &p),
                         0);
        /* The horizon (600 s) is a rung: no extra row. */
        assert_int_equal(p.n_rows, IDLE_LADDER_DEFAULT_N);
        assert_int_equal(p.horizon_usec, 600 * SEC);
        assert_int_equal(p.aged_min_usec, 100 * SEC);
        assert_int_equal(p.aged_max_usec, 100 * SEC);
        assert_int_equal(p.total_bytes[LRUGEN_ANON], 71500 * TEST_PAGE_SIZE);
        assert_int_equal(p.hot_bytes[LRUGEN_ANON], 1500 * TEST_PAGE_SIZE);
        assert_int_equal(p.hot_bytes[LRUGEN_FILE], 1500 * TEST_PAGE_SIZE);

        const struct idle_profile_row *r = row_at(&p, 10 * SEC);
        assert_int_equal(r->bytes[LRUGEN_ANON], 71000 * TEST_PAGE_SIZE);
        assert_int_equal(r->bytes[LRUGEN_FILE], 16000 * TEST_PAGE_SIZE);
        assert_int_equal(r->flags, 0);
        r = row_at(&p, 2 * MIN_);
        assert_int_equal(r->bytes[LRUGEN_ANON], 70000 * TEST_PAGE_SIZE);
        r = row_at(&p, 5 * MIN_); /* 300 ≥ 300 */
        assert_int_equal(r->bytes[LRUGEN_ANON], 70000 * TEST_PAGE_SIZE);
        r = row_at(&p, 10 * MIN_);
        assert_int_equal(r->bytes[LRUGEN_ANON], 50000 * TEST_PAGE_SIZE);
        assert_int_equal(r->flags, IDLE_ROW_HORIZON);
        /* Beyond the oldest generation: not known yet, not 0 bytes idle. */
        r = row_at(&p, 30 * MIN_);
        assert_int_equal(r->flags, IDLE_ROW_UNKNOWN);
        assert_int_equal(r->bytes[LRUGEN_ANON], 0);
        /* The histogram's buckets: bytes known idle at most t (the youngest generation: 0). */
        assert_int_equal(row_at(&p, 10 * SEC)->known_le_bytes[LRUGEN_ANON], 500 * TEST_PAGE_SIZE);
        assert_int_equal(row_at(&p, 5 * MIN_)->known_le_bytes[LRUGEN_ANON],
                         21500 * TEST_PAGE_SIZE);
        assert_int_equal(r->known_le_bytes[LRUGEN_ANON], 71500 * TEST_PAGE_SIZE);
        assert_near(p.known_idle_byte_seconds[LRUGEN_ANON],
                    (50000.0 * 600 + 20000.0 * 300 + 1000.0 * 100) * TEST_PAGE_SIZE, 1);
        assert_int_equal(row_at(&p, 60 * MIN_)->flags, IDLE_ROW_UNKNOWN);
}

/* The case: generations spanning 38 s. The row of the horizon itself comes between the
 * 30 s and 1 min rungs and says what is idle for at least 38 s. */
static void test_horizon_between_rungs(void **unused) {
        struct lrugen_lruvec v;
        struct idle_profile p;

        lruvec_fill(&v, 7, 0, 3, 4, (uint32_t[]) { 60, 38, 10, 2 },
                    (uint64_t[]) { 37632, 0, 2000, 100 }, (uint64_t[]) { 0, 0, 0, 0 });
        assert_int_equal(idle_profile_compute(&v, 1, NULL, 0, TEST_PAGE_SIZE,
                                              idle_ladder_default_usec, IDLE_LADDER_DEFAULT_N, &p),
                         0);
        assert_int_equal(p.n_rows, IDLE_LADDER_DEFAULT_N + 1);
        assert_int_equal(p.horizon_usec, 38 * SEC);
        assert_int_equal(p.rows[2].idle_usec, 38 * SEC);
        assert_int_equal(p.rows[2].flags, IDLE_ROW_HORIZON);
        assert_int_equal(p.rows[2].bytes[LRUGEN_ANON], 147 * MiB);
        assert_int_equal(p.rows[1].bytes[LRUGEN_ANON], 147 * MiB);     /* 30 s */
        assert_int_equal(p.rows[0].bytes[LRUGEN_ANON], 147 * MiB); /* 10 s: not generation 2 */
        assert_int_equal(p.rows[3].idle_usec, MIN_);
        assert_int_equal(p.rows[3].flags, IDLE_ROW_UNKNOWN);
}

/* Two lruvecs reaching back 600 s and 40 s: at 1 min only the first can tell ("at least"). */
static void test_partial(void **unused) {
        struct lrugen_lruvec v[2];
        struct idle_profile p;

        four_gens(&v[0], 42);
        lruvec_fill(&v[1], 43, 0, 5, 3, (uint32_t[]) { 90, 40, 5 },
                    (uint64_t[]) { 1000, 0, 10 }, (uint64_t[]) { 0, 0, 0 });
        assert_int_equal(idle_profile_compute(v, 2, NULL, 0, TEST_PAGE_SIZE,
                                              idle_ladder_default_usec, IDLE_LADDER_DEFAULT_N, &p),
                         0);
        assert_int_equal(p.horizon_usec, 600 * SEC);
        assert_int_equal(p.aged_min_usec, 5 * SEC);
        assert_int_equal(p.aged_max_usec, 100 * SEC);
        assert_int_equal(p.n_lruvecs, 2);
        const struct idle_profile_row *r = row_at(&p, 30 * SEC);
        assert_int_equal(r->flags, 0);
        assert_int_equal(r->bytes[LRUGEN_ANON], (71000 + 1000) * TEST_PAGE_SIZE);
        r = row_at(&p, MIN_);
        assert_int_equal(r->flags, IDLE_ROW_PARTIAL);
        assert_int_equal(r->bytes[LRUGEN_ANON], 71000 * TEST_PAGE_SIZE);
        /* Empty lruvecs (memcgs without pages) do not make a rung partial. */
        lruvec_fill(&v[1], 43, 0, 5, 3, (uint32_t[]) { 90, 40, 5 }, (uint64_t[]) { 0, 0, 0 },
                    (uint64_t[]) { 0, 0, 0 });
        assert_int_equal(idle_profile_compute(v, 2, NULL, 0, TEST_PAGE_SIZE,
                                              idle_ladder_default_usec, IDLE_LADDER_DEFAULT_N, &p),
                         0);
        assert_int_equal(row_at(&p, MIN_)->flags, 0);
        assert_int_equal(p.n_lruvecs, 1);
}

static void test_nothing_known(void **unused) {
        struct lrugen_lruvec v;
        struct idle_profile p;

        /* Everything in the youngest generation: no idle time known at all. */
        lruvec_fill(&v, 7, 0, 3, 2, (uint32_t[]) { 60, 2 }, (uint64_t[]) { 0, 100 },
                    (uint64_t[]) { 0, 0 });
        assert_int_equal(idle_profile_compute(&v, 1, NULL, 0, TEST_PAGE_SIZE,
                                              idle_ladder_default_usec, IDLE_LADDER_DEFAULT_N, &p),
                         0);
        assert_int_equal(p.horizon_usec, 0);
        assert_int_equal(p.n_rows, IDLE_LADDER_DEFAULT_N);
        for (size_t i = 0; i < p.n_rows; i++)
                assert_int_equal(p.rows[i].flags, IDLE_ROW_UNKNOWN);
        assert_int_equal(idle_profile_compute(NULL, 0, NULL, 0, TEST_PAGE_SIZE,
                                              idle_ladder_default_usec, 1, &p),
                         0);
        assert_int_equal(p.n_rows, 1);
        assert_int_equal(p.rows[0].flags, IDLE_ROW_UNKNOWN);
}

static void test_invalid(void **unused) {
        struct lrugen_lruvec v;
        struct idle_profile p;
        struct idle_risk r;
        uint64_t bad[2] = { 30 * SEC, 10 * SEC };

        four_gens(&v, 1);
        assert_int_equal(idle_profile_compute(&v, 1, NULL, 0, TEST_PAGE_SIZE, bad, 2, &p), -EINVAL);
        assert_int_equal(idle_profile_compute(&v, 1, NULL, 0, 0, idle_ladder_default_usec, 1, &p),
                         -EINVAL);
        assert_int_equal(idle_profile_compute(&v, 1, NULL, 0, TEST_PAGE_SIZE,
                                              idle_ladder_default_usec, IDLE_LADDER_MAX + 1, &p),
                         -EINVAL);
        assert_int_equal(idle_risk_init(&r, bad, 2), -EINVAL);
        v.nr_gens = 5;
        assert_int_equal(idle_profile_compute(&v, 1, NULL, 0, TEST_PAGE_SIZE,
                                              idle_ladder_default_usec, 1, &p),
                         -EINVAL);
}

/* Random histograms of xorshift64 state. */
static uint64_t rnd(uint64_t *x) {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        return *x;
}

static void random_lruvec(struct lrugen_lruvec *v, uint64_t *x, uint64_t memcg) {
        unsigned n = 2 + rnd(x) % 3;
        uint32_t ages[4];
        uint64_t anon[4], file[4];
        uint32_t age = 5 + rnd(x) % 3000;

        for (unsigned i = n; i-- > 0;) {
                ages[i] = age;
                age += rnd(x) % 600;
                anon[i] = rnd(x) % 50000;
                file[i] = rnd(x) % 50000;
        }
        lruvec_fill(v, memcg, 0, 100, n, ages, anon, file);
}

/* One idle model: at T, the profile's row is the decision's cold estimate, and the forecast is
 * what the decision evicts when nothing else (MaxStep, swap, floor) limits it. */
static void test_one_model(void **unused) {
        uint64_t x = 0x9e3779b97f4a7c15ULL;

        for (int round = 0; round < 500; round++) {
                struct policy p = test_policy();
                struct kernel_caps caps = caps_all();
                struct lrugen_lruvec v[2];
                struct policy_state s;
                struct idle_profile prof;
                struct idle_forecast f;
                uint64_t t = idle_ladder_default_usec[rnd(&x) % 6];
                struct cgroup_sample prev = sample_make(100000 * SEC), cur;

                random_lruvec(&v[0], &x, 1);
                random_lruvec(&v[1], &x, 2);
                p.min_cold_age_usec = p.max_cold_age_usec = t;
                p.swappiness = 100;
                p.max_step_bytes = 64 * GiB;
                prev.lruvecs = v;
                prev.n_lruvecs = 2;
                prev.limits.current = 64 * GiB;
                state_init_running(&s, &p, &prev);
                (void) run(&p, &caps, &s, NULL, &prev);
                cur = sample_next(&prev, 0);
                cur.now_usec += 1; /* rates need time to pass; ages are what the kernel said */
                struct decision d = run(&p, &caps, &s, &prev, &cur);

                assert_int_equal(idle_profile_compute(v, 2, &s, cur.now_usec, TEST_PAGE_SIZE,
                                                      idle_ladder_default_usec,
                                                      IDLE_LADDER_DEFAULT_N, &prof),
                                 0);
                const struct idle_profile_row *r = row_at(&prof, t);
                if (!(r->flags & IDLE_ROW_UNKNOWN)) {
                        assert_int_equal(r->bytes[LRUGEN_ANON], d.cold_bytes[LRUGEN_ANON]);
                        assert_int_equal(r->bytes[LRUGEN_FILE], d.cold_bytes[LRUGEN_FILE]);
                }
                assert_int_equal(prof.horizon_usec, d.idle_horizon_usec);
                /* What a cgroup keeps of its lruvecs gives the same profile later. */
                struct idle_gens g[2];
                struct idle_profile kept_prof;
                for (int j = 0; j < 2; j++)
                        assert_int_equal(idle_gens_take(&v[j], &s, cur.now_usec, TEST_PAGE_SIZE,
                                                        &g[j]),
                                         0);
                assert_int_equal(idle_profile_compute_gens(g, 2, idle_ladder_default_usec,
                                                           IDLE_LADDER_DEFAULT_N, &kept_prof),
                                 0);
                assert_memory_equal(&kept_prof, &prof, sizeof prof);

                assert_int_equal(idle_forecast_compute(&p, &caps, &s, &cur, t, &f), 0);
                if (f.flags & IDLE_ROW_UNKNOWN)
                        continue;
                assert_int_equal(f.bytes[LRUGEN_ANON], d.planned_bytes[LRUGEN_ANON]);
                assert_int_equal(f.bytes[LRUGEN_FILE], d.planned_bytes[LRUGEN_FILE]);
        }
}

static void test_forecast_limits(void **unused) {
        struct policy p = test_policy();
        struct kernel_caps caps = caps_all();
        struct lrugen_lruvec v;
        struct idle_forecast f;
        struct cgroup_sample cur = sample_make(1000 * SEC);

        four_gens(&v, 42);
        cur.lruvecs = &v;
        cur.n_lruvecs = 1;
        /* 240 s: generations 10 (≥ 600 s) and 11 (≥ 300 s); 12 is idle ≥ 100 s only. */
        assert_int_equal(idle_forecast_compute(&p, &caps, NULL, &cur, 240 * SEC, &f), 0);
        assert_int_equal(f.flags, 0);
        assert_int_equal(f.bytes[LRUGEN_ANON], 70000 * TEST_PAGE_SIZE);
        assert_int_equal(f.bytes[LRUGEN_FILE], 15000 * TEST_PAGE_SIZE);
        /* Never the two youngest generations, however short the threshold. */
        assert_int_equal(idle_forecast_compute(&p, &caps, NULL, &cur, 10 * SEC, &f), 0);
        assert_int_equal(f.bytes[LRUGEN_ANON], 70000 * TEST_PAGE_SIZE);
        /* Beyond the oldest generation: not known. */
        assert_int_equal(idle_forecast_compute(&p, &caps, NULL, &cur, 20 * MIN_, &f), 0);
        assert_int_equal(f.flags, IDLE_ROW_UNKNOWN);
        assert_int_equal(f.bytes[LRUGEN_ANON] + f.bytes[LRUGEN_FILE], 0);
        /* Swap: anon no more than the headroom. */
        cur.limits.swap_max = 100 * MiB;
        cur.limits.swap_current = 90 * MiB;
        assert_int_equal(idle_forecast_compute(&p, &caps, NULL, &cur, 240 * SEC, &f), 0);
        assert_int_equal(f.bytes[LRUGEN_ANON], 10 * MiB);
        assert_int_equal(f.flags, IDLE_ROW_NO_SWAP);
        caps.has_swap = false;
        assert_int_equal(idle_forecast_compute(&p, &caps, NULL, &cur, 240 * SEC, &f), 0);
        assert_int_equal(f.bytes[LRUGEN_ANON], 0);
        assert_int_equal(f.bytes[LRUGEN_FILE], 15000 * TEST_PAGE_SIZE);
        /* Floor: at most current − max(memory.min, Floor, hot). */
        caps = caps_all();
        cur.limits.swap_max = UINT64_MAX;
        p.floor_bytes = cur.limits.current - 50000 * TEST_PAGE_SIZE;
        assert_int_equal(idle_forecast_compute(&p, &caps, NULL, &cur, 240 * SEC, &f), 0);
        assert_int_equal(f.flags, IDLE_ROW_FLOOR);
        assert_int_equal(f.bytes[LRUGEN_ANON] + f.bytes[LRUGEN_FILE], 50000 * TEST_PAGE_SIZE);
        /* A sample without lru_gen tells nothing. */
        cur.has_lrugen = false;
        assert_int_equal(idle_forecast_compute(&p, &caps, NULL, &cur, 10 * SEC, &f), 0);
        assert_int_equal(f.flags, IDLE_ROW_UNKNOWN);
}

/* ---- a small MGLRU for the re-access rate ---- */

enum { SET_COLD, SET_WARM, SET_HOT, NR_SETS };

struct sim {
        uint64_t min_seq, max_seq;
        uint64_t birth[64];        /* by seq */
        uint64_t set_seq[NR_SETS]; /* every page of a set moves together */
        uint64_t set_pages[NR_SETS];
        uint64_t last_access[NR_SETS];
        uint64_t last_walk;
};

/* An ageing walk at time now: used sets move to max_seq, which then advances; with four
 * generations the oldest is folded into the next first (inc_min_seq). */
static void sim_age(struct sim *m, uint64_t now) {
        for (int k = 0; k < NR_SETS; k++)
                if (m->last_access[k] > m->last_walk)
                        m->set_seq[k] = m->max_seq;
        if (m->max_seq - m->min_seq + 1 == LRUGEN_MAX_NR_GENS) {
                for (int k = 0; k < NR_SETS; k++)
                        if (m->set_seq[k] == m->min_seq)
                                m->set_seq[k]++;
                m->min_seq++;
        }
        m->birth[++m->max_seq] = now;
        m->last_walk = now;
}

static void sim_read(const struct sim *m, uint64_t now, struct lrugen_lruvec *v) {
        memset(v, 0, sizeof *v);
        v->memcg_id = 9;
        v->nr_gens = (unsigned) (m->max_seq - m->min_seq + 1);
        for (unsigned i = 0; i < v->nr_gens; i++) {
                uint64_t seq = m->min_seq + i;
                v->gens[i].seq = seq;
                v->gens[i].age_ms = (uint32_t) ((now - m->birth[seq]) / 1000);
                for (int k = 0; k < NR_SETS; k++)
                        if (m->set_seq[k] == seq)
                                v->gens[i].nr_pages[LRUGEN_ANON] += m->set_pages[k];
        }
}

/* Runs the simulated MGLRU for 6 minutes (aged every 15 s, read every second) with the warm
 * set used every warm_s seconds and the hot set always, accounting each reading into r. */
static void sim_run(struct idle_risk *r, unsigned warm_s) {
        struct sim m = {
                .min_seq = 0,
                .max_seq = 1,
                .birth = { [0] = 0, [1] = 10 * SEC },
                .set_seq = { 1, 1, 1 },
                .set_pages = { [SET_COLD] = 25000, [SET_WARM] = 5000, [SET_HOT] = 2000 },
                .last_walk = 10 * SEC,
        };
        struct lrugen_lruvec cur;
        struct idle_gens prev;
        uint64_t t0 = 20 * SEC;

        assert_int_equal(idle_risk_init(r, idle_ladder_default_usec, IDLE_LADDER_DEFAULT_N), 0);
        m.last_access[SET_COLD] = m.last_access[SET_WARM] = m.last_access[SET_HOT] = t0;
        sim_read(&m, t0, &cur);
        prev = kept(&cur, t0);
        for (uint64_t s = 1; s <= 360; s++) {
                uint64_t now = t0 + s * SEC;

                m.last_access[SET_HOT] = now;
                if (s % warm_s == 1 % warm_s)
                        m.last_access[SET_WARM] = now;
                if (s % 15 == 0)
                        sim_age(&m, now);
                sim_read(&m, now, &cur);
                assert_true(account(r, &prev, now - SEC, &cur, now, 0));
                prev = kept(&cur, now);
        }
}

/* Pages used before every ageing never leave the two youngest generations, which eviction never
 * takes: their constant promotions are no risk (here the hot set, and a "warm" set used every
 * 5 s), and the rate is zero at every rung. */
static void test_risk_hot_not_counted(void **unused) {
        struct idle_risk r;

        sim_run(&r, 5);
        for (size_t k = 0; k < 2; k++)
                assert_true(idle_risk_share_per_min(&r, k, LRUGEN_ANON) == 0.0);
}

/* Cold set never used again, warm set used every 20 s, hot set always; aged every 15 s and read
 * every second for 6 minutes. The warm set sometimes spends an ageing interval unused in a
 * generation eviction could take before it is used again: the 10 s rung sees it come back. The
 * cold set, alone at 30 s and beyond, never does. */
static void test_risk_cold_warm_hot(void **unused) {
        struct idle_risk r;

        sim_run(&r, 20);
        assert_int_equal(r.intervals, 360);
        assert_int_equal(r.skipped, 0);
        double warm10 = idle_risk_share_per_min(&r, 0, LRUGEN_ANON);
        double cold30 = idle_risk_share_per_min(&r, 1, LRUGEN_ANON);
        double cold60 = idle_risk_share_per_min(&r, 2, LRUGEN_ANON);
        print_message("re-access per minute: >=10s %.4f, >=30s %.4f, >=1min %.4f\n", warm10,
                      cold30, cold60);
        assert_true(warm10 > 0.01);
        assert_true(cold30 == 0.0);
        /* Not measured where nothing was exposed: ageing every 15 s, the generations never
         * reach back a minute. */
        assert_true(cold60 < 0);
        assert_true(idle_risk_share_per_min(&r, 0, LRUGEN_FILE) < 0);
}

/* Folding the oldest generation into the next is not a re-access; what the merged group lost
 * comes from its youngest member first. */
static void test_risk_merge(void **unused) {
        struct lrugen_lruvec p, c;
        struct idle_risk r;

        assert_int_equal(idle_risk_init(&r, idle_ladder_default_usec, 2), 0);
        lruvec_fill(&p, 1, 0, 10, 4, (uint32_t[]) { 100, 60, 40, 5 },
                    (uint64_t[]) { 1000, 500, 10, 10 }, (uint64_t[]) { 0, 0, 0, 0 });
        /* Aged: 10 folded into 11 (1500 pages), nothing left. */
        lruvec_fill(&c, 1, 0, 11, 4, (uint32_t[]) { 61, 41, 6, 1 },
                    (uint64_t[]) { 1500, 10, 10, 0 }, (uint64_t[]) { 0, 0, 0, 0 });
        struct idle_gens g = kept(&p, 0);
        assert_true(account(&r, &g, 0, &c, SEC, 0));
        assert_true(idle_risk_share_per_min(&r, 0, LRUGEN_ANON) == 0.0);
        /* 200 pages of the group gone: from generation 11 (idle ≥ 40 s: the 10 s and 30 s
         * rungs), none from generation 10. */
        lruvec_fill(&c, 1, 0, 11, 4, (uint32_t[]) { 61, 41, 6, 1 },
                    (uint64_t[]) { 1300, 10, 10, 200 }, (uint64_t[]) { 0, 0, 0, 0 });
        assert_int_equal(idle_risk_init(&r, idle_ladder_default_usec, 3), 0);
        assert_true(account(&r, &g, 0, &c, SEC, 0));
        assert_near(r.promoted[0][LRUGEN_ANON], 200.0 * TEST_PAGE_SIZE, 1e-6);
        assert_near(r.promoted[1][LRUGEN_ANON], 200.0 * TEST_PAGE_SIZE, 1e-6);
        assert_near(r.promoted[2][LRUGEN_ANON], 0.0, 1e-6); /* ≥ 1 min: generation 10 only */
        assert_near(r.exposed[2][LRUGEN_ANON], 1000.0 * TEST_PAGE_SIZE, 1e-6);
}

static void test_risk_skips(void **unused) {
        struct lrugen_lruvec p, c;
        struct idle_gens g;
        struct idle_risk r;

        assert_int_equal(idle_risk_init(&r, idle_ladder_default_usec, 2), 0);
        four_gens(&p, 1);
        g = kept(&p, 0);
        c = p;
        /* Reclaim took pages meanwhile: eviction looks like re-access. */
        assert_false(account(&r, &g, 0, &c, SEC, 1));
        /* Time did not move forward, or too much of it. */
        assert_false(account(&r, &g, SEC, &c, SEC, 0));
        assert_false(account(&r, &g, 0, &c, POLICY_MAX_SAMPLE_GAP_USEC + 1, 0));
        /* Recreated: the sequence numbers went back. */
        for (unsigned i = 0; i < 4; i++)
                c.gens[i].seq -= 5;
        assert_false(account(&r, &g, 0, &c, SEC, 0));
        /* Gone from the second reading. */
        c = p;
        c.memcg_id = 2;
        assert_false(account(&r, &g, 0, &c, SEC, 0));
        assert_int_equal(r.skipped, 5);
        assert_int_equal(r.intervals, 0);
        c.memcg_id = 1;
        assert_true(account(&r, &g, 0, &c, SEC, 0));
        assert_int_equal(r.intervals, 1);
}

/* What a cgroup keeps of a lruvec: bytes and idle times per generation, the idle times capped
 * where our eviction put pages back (as the controller caps them), and nothing that does not
 * follow from the oldest sequence number. */
static void test_gens_take(void **unused) {
        struct policy p = test_policy();
        struct lrugen_lruvec v;
        struct policy_state s;
        struct idle_gens g;

        four_gens(&v, 42);
        v.gens[1].gone[LRUGEN_FILE] = true;
        g = kept(&v, 1000 * SEC);
        assert_int_equal(g.memcg_id, 42);
        assert_int_equal(g.min_seq, 10);
        assert_int_equal(g.nr_gens, 4);
        assert_int_equal(g.aged_usec, 100 * SEC);
        assert_int_equal(g.idle_usec[0], 600 * SEC);
        assert_int_equal(g.idle_usec[2], 100 * SEC);
        assert_int_equal(g.idle_usec[3], 0);
        assert_int_equal(g.bytes[0][LRUGEN_ANON], 50000 * TEST_PAGE_SIZE);
        assert_int_equal(g.bytes[1][LRUGEN_FILE], 0); /* gone */
        /* Pages our eviction found used went back into generation 11 20 s ago. */
        policy_state_init(&s, &p, 0);
        s.lruvecs[0] = (struct policy_lruvec_state) { .memcg_id = 42, .node = 0 };
        s.lruvecs[0].rejected[0].seq = 11;
        s.lruvecs[0].rejected[0].usec = 980 * SEC;
        s.n_lruvecs = 1;
        assert_int_equal(idle_gens_take(&v, &s, 1000 * SEC, TEST_PAGE_SIZE, &g), 0);
        assert_int_equal(g.idle_usec[1], 20 * SEC);
        assert_int_equal(g.idle_usec[0], 600 * SEC);
        /* Sequence numbers with a hole, no generations, no page size. */
        v.gens[2].seq = 20;
        assert_int_equal(idle_gens_take(&v, NULL, 0, TEST_PAGE_SIZE, &g), -EINVAL);
        v.gens[2].seq = 12;
        assert_int_equal(idle_gens_take(&v, NULL, 0, 0, &g), -EINVAL);
        v.nr_gens = 0;
        assert_int_equal(idle_gens_take(&v, NULL, 0, TEST_PAGE_SIZE, &g), -EINVAL);
        g.nr_gens = 0;
        assert_int_equal(idle_profile_compute_gens(&g, 1, idle_ladder_default_usec, 1,
                                                   &(struct idle_profile) {}),
                         -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_ladder_one_lruvec),
                cmocka_unit_test(test_horizon_between_rungs),
                cmocka_unit_test(test_partial),
                cmocka_unit_test(test_nothing_known),
                cmocka_unit_test(test_invalid),
                cmocka_unit_test(test_one_model),
                cmocka_unit_test(test_forecast_limits),
                cmocka_unit_test(test_risk_cold_warm_hot),
                cmocka_unit_test(test_risk_hot_not_counted),
                cmocka_unit_test(test_risk_merge),
                cmocka_unit_test(test_risk_skips),
                cmocka_unit_test(test_gens_take),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
