#ifndef MOLT_BENCH_SQLITE_SHIM_H
#define MOLT_BENCH_SQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT cannot be imported into Swift (a macro casting -1 to a function pointer).
static inline sqlite3_destructor_type molt_bench_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
