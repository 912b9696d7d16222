#ifndef MOLT_CSQLITE_SHIM_H
#define MOLT_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro that casts -1 to a function pointer; Swift cannot import it.
// Binding with it makes SQLite copy the bytes before the call returns.
static inline sqlite3_destructor_type molt_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
