/* SPDX-License-Identifier: GPL-2.0-or-later */
/* file-trouble.h: a kernel file that failed to read or parse, remembered so that it is said once
 * when the trouble starts and once when it ends (the host reader, the lru_gen source). */
#pragma once

#include <stdbool.h>

struct file_trouble {
        bool active;
        int error;
        unsigned line;
};
