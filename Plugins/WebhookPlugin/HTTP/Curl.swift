import CCurl
import Glibc

/// libcurl's entry points as Swift can call them. `curl_easy_setopt` and
/// `curl_easy_getinfo` are variadic, which Swift does not import; they are
/// looked up by name and called through fixed prototypes, which is sound on
/// the Linux ABIs (x86-64, AArch64) for the integer and pointer arguments
/// passed here.
enum Curl {
    private typealias SetInteger = @convention(c) (UnsafeMutableRawPointer?, CURLoption, Int) -> CURLcode
    private typealias SetPointer = @convention(c) (UnsafeMutableRawPointer?, CURLoption, UnsafeRawPointer?) -> CURLcode
    private typealias GetInfo = @convention(c) (UnsafeMutableRawPointer?, CURLINFO, UnsafeMutableRawPointer?) -> CURLcode

    /// `curl_global_init` once, before the first handle (it is not thread-safe).
    static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    private static let setInteger: SetInteger? = lookUp("curl_easy_setopt")
    private static let setPointer: SetPointer? = lookUp("curl_easy_setopt")
    private static let getInfo: GetInfo? = lookUp("curl_easy_getinfo")

    private static func lookUp<Function>(_ name: String) -> Function? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: Function.self) }
    }

    /// A `long` or `curl_off_t` option.
    @discardableResult
    static func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) -> CURLcode {
        setInteger?(handle, option, value) ?? CURLE_FAILED_INIT
    }

    /// A pointer option: a C string, a list, a callback or its user data.
    @discardableResult
    static func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, pointer: UnsafeRawPointer?) -> CURLcode {
        setPointer?(handle, option, pointer) ?? CURLE_FAILED_INIT
    }

    /// A `long` piece of information about the last transfer.
    static func info(_ handle: UnsafeMutableRawPointer, _ item: CURLINFO) -> Int? {
        var value = 0
        return getInfo?(handle, item, &value) == CURLE_OK ? value : nil
    }
}
