#ifndef MOLT_CSQLITE_SHIM_H
#define MOLT_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro that casts -1 to a function pointer; Swift cannot import it.
// Binding with it makes SQLite copy the bytes before the call returns.
static inline sqlite3_destructor_type molt_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// sqlite3_db_config is variadic; this calls it for the options that take (int, int*).
static inline int molt_sqlite_db_config_flag(sqlite3 *db, int option, int value) {
    int result = 0;
    return sqlite3_db_config(db, option, value, &result);
}

#endif
