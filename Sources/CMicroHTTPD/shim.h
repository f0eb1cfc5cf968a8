// libmicrohttpd (Debian: libmicrohttpd-dev): the HTTP listener of DaemonHTTP, its one importer. Nothing links it:
// DaemonHTTP opens libmicrohttpd.so.12 with dlopen when a listener starts (Server/MicroHTTPD.swift), so these
// headers give the types, and the typedefs below the entry points' prototypes, looked up by name.
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <microhttpd.h>

typedef __typeof__(&MHD_stop_daemon) tagrouter_mhd_stop_daemon_fn;
typedef __typeof__(&MHD_lookup_connection_value) tagrouter_mhd_lookup_connection_value_fn;
typedef __typeof__(&MHD_queue_response) tagrouter_mhd_queue_response_fn;
typedef __typeof__(&MHD_create_response_from_buffer) tagrouter_mhd_create_response_from_buffer_fn;
typedef __typeof__(&MHD_create_response_from_callback) tagrouter_mhd_create_response_from_callback_fn;
typedef __typeof__(&MHD_destroy_response) tagrouter_mhd_destroy_response_fn;
typedef __typeof__(&MHD_add_response_header) tagrouter_mhd_add_response_header_fn;

// MHD_start_daemon takes its options as C varargs, which Swift cannot pass: this fixes the ones DaemonHTTP uses,
// calling `start_daemon` (MHD_start_daemon as dlsym found it) with them. One thread per connection (a server-sent
// event stream blocks its own thread), serving the socket `listen_fd` that the caller bound, at most
// `connection_limit` connections at once, each with `memory_limit` bytes for its request; one idle for
// `idle_timeout` seconds is closed. `notify_connection` hears of each connection opened and closed,
// `notify_completed` of each request answered (or abandoned).
static inline struct MHD_Daemon *tagrouter_mhd_start(
    void *start_daemon, int listen_fd, unsigned int connection_limit, unsigned int idle_timeout, size_t memory_limit,
    MHD_AccessHandlerCallback handler, MHD_NotifyConnectionCallback notify_connection,
    MHD_RequestCompletedCallback notify_completed, void *context) {
    __typeof__(&MHD_start_daemon) start = (__typeof__(&MHD_start_daemon)) start_daemon;
    return start(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC,
        0, NULL, NULL, handler, context,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket) listen_fd,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, idle_timeout,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        MHD_OPTION_NOTIFY_CONNECTION, notify_connection, context,
        MHD_OPTION_NOTIFY_COMPLETED, notify_completed, context,
        MHD_OPTION_END);
}

// MHD_get_connection_info is variadic too: the socket of `connection` (-1 when unknown), through `get_info`.
static inline int tagrouter_mhd_connection_fd(void *get_info, struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        ((__typeof__(&MHD_get_connection_info)) get_info)(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

// The peer's address of `connection` (NULL when unknown), through `get_info`.
static inline const struct sockaddr *tagrouter_mhd_client_address(void *get_info, struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        ((__typeof__(&MHD_get_connection_info)) get_info)(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}
