// SQLite, for the index of what the app read from photos (Debian's libsqlite3).
#include <sqlite3.h>

/// SQLITE_TRANSIENT (a cast of -1 to a destructor, which Swift cannot write): SQLite copies
/// the text bound.
static inline sqlite3_destructor_type cp_sqlite_transient(void) { return SQLITE_TRANSIENT; }
