// libsoup 3. Construct-only session properties need the variadic constructor, which Swift
// cannot call; this fixed-argument wrapper sets them.
#include <libsoup/soup.h>

static inline SoupSession *cp_soup_session_new(int max_conns, int max_conns_per_host, guint timeout_s,
                                               const char *user_agent) {
    return soup_session_new_with_options("max-conns", max_conns, "max-conns-per-host", max_conns_per_host,
                                         "timeout", timeout_s, "user-agent", user_agent, NULL);
}

// Initialises the classes a session and its first request use (the session, the cache,
// messages, connections, sockets, addresses, the resolver) and those the disk cache reads its
// index and bodies with (local files and their streams, made by opening /dev/null), so that
// their first use does not happen on two threads at once: GLib 2.74 can deadlock when threads
// initialise types concurrently.
static inline void cp_soup_prepare_types(void) {
    GType types[] = {
        SOUP_TYPE_SESSION, SOUP_TYPE_CACHE, SOUP_TYPE_MESSAGE, G_TYPE_SOCKET_CLIENT,
        G_TYPE_SOCKET_CONNECTION, G_TYPE_TCP_CONNECTION, G_TYPE_SOCKET, G_TYPE_NETWORK_ADDRESS,
        G_TYPE_INET_ADDRESS, G_TYPE_INET_SOCKET_ADDRESS, G_TYPE_PROXY_ADDRESS, G_TYPE_MEMORY_INPUT_STREAM,
    };
    for (gsize i = 0; i < G_N_ELEMENTS(types); i++) g_type_class_unref(g_type_class_ref(types[i]));
    g_object_unref(g_resolver_get_default());
    GFile *nothing = g_file_new_for_path("/dev/null");
    GFileInputStream *stream = g_file_read(nothing, NULL, NULL);
    if (stream) {
        g_input_stream_close(G_INPUT_STREAM(stream), NULL, NULL);
        g_object_unref(stream);
    }
    g_object_unref(nothing);
}

static inline SoupServer *cp_soup_server_new(void) {
    return soup_server_new("server-header", "ClassicPhotosTest", NULL);
}
