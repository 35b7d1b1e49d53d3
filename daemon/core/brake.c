/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every brake may use (brake.h): the one path of its stops into control. The table
 * (brakes.c) sits above the brakes and this file below them, so that a new brake is one file
 * that includes brake.h and one line in the table. */
#include "mglrud/core/brake.h"

#include "mglrud/shared/log.h"
#include "mglrud/shared/parse-util.h"

unsigned brake_stop(struct brake *b, struct cgroup *cg, const char *why,
                    struct control_stop stop) {
        struct actuator_stopped st = actuator_stop_cgroup(b->env->actuator, cg->id);
        stop.n_stopped += st.queued + st.running;
        uint64_t t = control_cgroup_note_stop(cg, &stop);
        char tb[32];
        log_notice("%s: %s: reclaim stopped (%u queued write%s cancelled%s)%s%s.", cg->name, why,
                   st.queued, st.queued == 1 ? "" : "s",
                   st.running ? ", the running one ends after its chunk" : "",
                   t ? ", T raised to " : "", t ? format_duration(tb, sizeof tb, t) : "");
        b->stops++;
        return stop.n_stopped;
}
