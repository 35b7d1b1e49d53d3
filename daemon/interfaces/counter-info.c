/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "mglrud/interfaces/counter-info.h"

#include <string.h>

#include "mglrud/core/control.h"
#include "mglrud/core/manager.h"

#define MEMBER_SIZE(type, field) sizeof(((type *) 0)->field)

/* One descriptor, of a member of type (struct control_snapshot, struct daemon_stats). */
#define INFO_(type, index, field_, unit_, when_, metric_, metric_type_, help_, bus_key_,        \
              dump_label_)                                                                     \
        [index] = {                                                                            \
                .field = #field_,                                                              \
                .offset = offsetof(type, field_),                                              \
                .size = MEMBER_SIZE(type, field_),                                             \
                .unit = unit_,                                                                 \
                .when = when_,                                                                 \
                .metric = metric_,                                                             \
                .metric_type = metric_type_,                                                   \
                .help = help_,                                                                 \
                .bus_key = bus_key_,                                                           \
                .dump_label = dump_label_,                                                     \
        },
#define CONTROL_INFO_(field, type, source, unit, when, metric, metric_type, help, bus_key,     \
                      dump_label)                                                              \
        INFO_(struct control_snapshot, CONTROL_COUNTER_##field, field, unit, when, metric,      \
              metric_type, help, bus_key, dump_label)
#define DAEMON_INFO_(field, type, source, unit, metric, metric_type, help, bus_key)            \
        INFO_(struct daemon_stats, DAEMON_COUNTER_##field, field, unit, COUNTER_ALWAYS, metric, \
              metric_type, help, bus_key, NULL)

const struct counter_info control_counter_info[_CONTROL_COUNTER_MAX] = {
        CONTROL_COUNTERS(CONTROL_INFO_)
};
const struct counter_info daemon_counter_info[_DAEMON_COUNTER_MAX] = {
        DAEMON_COUNTERS(DAEMON_INFO_)
};

/* counter_value() reads 1, 4 or 8 bytes. */
#define SIZE_CHECK_(type, field)                                                               \
        _Static_assert(MEMBER_SIZE(type, field) == 1 || MEMBER_SIZE(type, field) == 4 ||        \
                       MEMBER_SIZE(type, field) == 8, #field " is not 1, 4 or 8 bytes");
#define CONTROL_SIZE_CHECK_(field, ...) SIZE_CHECK_(struct control_snapshot, field)
#define DAEMON_SIZE_CHECK_(field, ...) SIZE_CHECK_(struct daemon_stats, field)
CONTROL_COUNTERS(CONTROL_SIZE_CHECK_)
DAEMON_COUNTERS(DAEMON_SIZE_CHECK_)

uint64_t counter_value(const struct counter_info *c, const void *base) {
        const char *p = (const char *) base + c->offset;
        switch (c->size) {
        case sizeof(uint8_t): {
                uint8_t v;
                memcpy(&v, p, sizeof v);
                return v;
        }
        case sizeof(uint32_t): {
                uint32_t v;
                memcpy(&v, p, sizeof v);
                return v;
        }
        default: {
                uint64_t v;
                memcpy(&v, p, sizeof v);
                return v;
        }
        }
}
