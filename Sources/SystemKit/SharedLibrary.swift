import Glibc

/// A C library opened with `dlopen` when a feature first needs it, rather than linked: a daemon that never
/// uses the feature never maps the library nor what the library itself loads (libcurl for webhooks,
/// libmicrohttpd for the metrics listener, libsystemd under systemd: see docs/development/memory.md). Its entry points
/// are looked up by name; the module that wraps it keeps the C headers for the types, and links nothing.
/// The handle is never closed: the library stays mapped for the life of the process once it was needed.
public struct SharedLibrary: @unchecked Sendable {
    /// The library cannot be used; the description names the Debian package that provides it.
    public struct Unavailable: Error, Sendable, CustomStringConvertible {
        /// The library as users know it (`libcurl`).
        public var library: String
        /// The Debian package to install (`libcurl4`).
        public var package: String
        /// What failed: dlopen's own message, or the symbol that is missing.
        public var reason: String

        public init(library: String, package: String, reason: String) {
            self.library = library
            self.package = package
            self.reason = reason
        }

        public var description: String { "\(library) is not available (install the Debian package \(package)): \(reason)" }
    }

    private let handle: UnsafeMutableRawPointer
    private let library: String
    private let package: String

    /// Opens `soname` (`libcurl.so.4`): `library` and `package` name it in the error when it is missing.
    public init(soname: String, library: String, package: String) throws(Unavailable) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            throw Unavailable(library: library, package: package, reason: dlerror().map { String(cString: $0) } ?? "dlopen failed")
        }
        self.handle = handle
        self.library = library
        self.package = package
    }

    /// The entry point `name`, as a C function of type `Function` (which the caller must get right:
    /// nothing checks the prototype).
    public func function<Function>(_ name: String) throws(Unavailable) -> Function {
        guard let address = dlsym(handle, name) else { throw Unavailable(library: library, package: package, reason: "no symbol \(name)") }
        return unsafeBitCast(address, to: Function.self)
    }
}
