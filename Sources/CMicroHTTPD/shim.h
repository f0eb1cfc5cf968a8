// libmicrohttpd (Debian: libmicrohttpd-dev): the HTTP listener of DaemonHTTP, its one importer.
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <microhttpd.h>

// MHD_start_daemon takes its options as C varargs, which Swift cannot pass: this fixes the ones DaemonHTTP uses.
// One thread per connection (a server-sent event stream blocks its own thread), serving the socket `listen_fd`
// that the caller bound, at most `connection_limit` connections at once; one idle for `idle_timeout` seconds is closed.
static inline struct MHD_Daemon *tagrouter_mhd_start(
    int listen_fd, unsigned int connection_limit, unsigned int idle_timeout, MHD_AccessHandlerCallback handler, void *handler_context) {
    return MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC,
        0, NULL, NULL, handler, handler_context,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket) listen_fd,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, idle_timeout,
        MHD_OPTION_END);
}
