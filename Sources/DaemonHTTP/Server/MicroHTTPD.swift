import CMicroHTTPD
import SystemKit

/// libmicrohttpd's entry points, opened with `dlopen` and looked up by name the
/// first time a metrics or page listener starts, so that a daemon without one
/// maps neither libmicrohttpd nor the GnuTLS chain it links (~2.3 MB resident:
/// docs/development/memory.md). The CMicroHTTPD module gives the headers and links nothing.
struct MicroHTTPD: @unchecked Sendable {  // `startDaemon`, `getConnectionInfo` are code addresses, immutable and shared like the functions
    /// `MHD_start_daemon`, variadic: called through `tagrouter_mhd_start` in the module's shim.
    let startDaemon: UnsafeMutableRawPointer
    let stopDaemon: tagrouter_mhd_stop_daemon_fn
    let lookupConnectionValue: tagrouter_mhd_lookup_connection_value_fn
    let queueResponse: tagrouter_mhd_queue_response_fn
    let createResponseFromBuffer: tagrouter_mhd_create_response_from_buffer_fn
    let createResponseFromCallback: tagrouter_mhd_create_response_from_callback_fn
    let destroyResponse: tagrouter_mhd_destroy_response_fn
    let addResponseHeader: tagrouter_mhd_add_response_header_fn
    /// `MHD_get_connection_info`, variadic: called through `tagrouter_mhd_connection_fd` and `…_client_address`.
    let getConnectionInfo: UnsafeMutableRawPointer

    /// libmicrohttpd, loaded once, or why it is not available.
    static let shared: Result<MicroHTTPD, SharedLibrary.Unavailable> = Result { () throws(SharedLibrary.Unavailable) in
        let library = try SharedLibrary(soname: "libmicrohttpd.so.12", library: "libmicrohttpd", package: "libmicrohttpd12")
        return MicroHTTPD(
            startDaemon: try library.function("MHD_start_daemon"), stopDaemon: try library.function("MHD_stop_daemon"),
            lookupConnectionValue: try library.function("MHD_lookup_connection_value"),
            queueResponse: try library.function("MHD_queue_response"),
            createResponseFromBuffer: try library.function("MHD_create_response_from_buffer"),
            createResponseFromCallback: try library.function("MHD_create_response_from_callback"),
            destroyResponse: try library.function("MHD_destroy_response"),
            addResponseHeader: try library.function("MHD_add_response_header"),
            getConnectionInfo: try library.function("MHD_get_connection_info"))
    }
}
