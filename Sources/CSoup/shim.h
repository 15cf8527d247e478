// libsoup 3. Construct-only session properties need the variadic constructor, which Swift
// cannot call; this fixed-argument wrapper sets them.
#include <libsoup/soup.h>

static inline SoupSession *cp_soup_session_new(int max_conns, int max_conns_per_host, guint timeout_s,
                                               const char *user_agent) {
    return soup_session_new_with_options("max-conns", max_conns, "max-conns-per-host", max_conns_per_host,
                                         "timeout", timeout_s, "user-agent", user_agent, NULL);
}

static inline SoupServer *cp_soup_server_new(void) {
    return soup_server_new("server-header", "ClassicPhotosTest", NULL);
}
