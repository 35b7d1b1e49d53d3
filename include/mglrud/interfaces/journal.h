/* SPDX-License-Identifier: GPL-2.0-or-later */
/* journal.h: the daemon's reports of what it did and would do: one structured journal record
 * per action (MGLRUD_CGROUP=, MGLRUD_ACTION=, MGLRUD_BYTES=, MGLRUD_BYTES_GOT=, MGLRUD_REASON=)
 * and per advice, or, for mglrud --once, one advice line per cgroup on a stream. */
#pragma once

#include <stdio.h>

#include "mglrud/core/cycle.h"

/* Returns the report sink of the daemon. With advice_out NULL every report is a log record
 * (advice that would act at info, the rest at debug); with a stream, advice and the decisions
 * behind actions are printed there as "PATH [SECTION]: LINE" and actions are logged too. */
struct report_sink journal_report_sink(FILE *advice_out);
