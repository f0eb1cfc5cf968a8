import CCurl
import Glibc
import SystemKit

/// libcurl's entry points, opened with `dlopen` and looked up by name the first
/// time a webhook action is configured, so that a daemon without one need not
/// map libcurl and its dependency tree (about 8 MB resident: see README
/// "webhook"; that saving also needs the CCurl module to stop linking it at
/// build time). `curl_easy_setopt` and `curl_easy_getinfo` are variadic, which
/// Swift does not import; they are called through fixed prototypes, which is
/// sound on the Linux ABIs (x86-64, AArch64) for the integer and pointer
/// arguments passed here.
struct Curl: Sendable {
    typealias Handle = UnsafeMutableRawPointer
    typealias List = UnsafeMutablePointer<curl_slist>

    let easyInit: @convention(c) () -> Handle?
    let easyCleanup: @convention(c) (Handle?) -> Void
    let easyReset: @convention(c) (Handle?) -> Void
    let easyPerform: @convention(c) (Handle?) -> CURLcode
    let easyStrerror: @convention(c) (CURLcode) -> UnsafePointer<CChar>?
    let slistAppend: @convention(c) (List?, UnsafePointer<CChar>?) -> List?
    let slistFreeAll: @convention(c) (List?) -> Void
    let getdate: @convention(c) (UnsafePointer<CChar>?, UnsafePointer<time_t>?) -> time_t
    private let setInteger: @convention(c) (Handle?, CURLoption, Int) -> CURLcode
    private let setPointer: @convention(c) (Handle?, CURLoption, UnsafeRawPointer?) -> CURLcode
    private let getInfo: @convention(c) (Handle?, CURLINFO, UnsafeMutableRawPointer?) -> CURLcode

    /// libcurl, loaded and globally initialised once, or why it is not available.
    static let shared: Result<Curl, SharedLibrary.Unavailable> = load()

    private static func load() -> Result<Curl, SharedLibrary.Unavailable> {
        do throws(SharedLibrary.Unavailable) {
            let library = try SharedLibrary(soname: "libcurl.so.4", library: "libcurl", package: "libcurl4")
            let curl = Curl(
                easyInit: try library.function("curl_easy_init"), easyCleanup: try library.function("curl_easy_cleanup"),
                easyReset: try library.function("curl_easy_reset"), easyPerform: try library.function("curl_easy_perform"),
                easyStrerror: try library.function("curl_easy_strerror"), slistAppend: try library.function("curl_slist_append"),
                slistFreeAll: try library.function("curl_slist_free_all"), getdate: try library.function("curl_getdate"),
                setInteger: try library.function("curl_easy_setopt"), setPointer: try library.function("curl_easy_setopt"),
                getInfo: try library.function("curl_easy_getinfo"))
            // curl_global_init is not thread-safe: done here, once, under the static's lock.
            let globalInit: @convention(c) (Int) -> CURLcode = try library.function("curl_global_init")
            guard globalInit(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK else {
                return .failure(SharedLibrary.Unavailable(library: "libcurl", package: "libcurl4", reason: "curl_global_init failed"))
            }
            return .success(curl)
        } catch {
            return .failure(error)
        }
    }

    /// A `long` or `curl_off_t` option.
    @discardableResult
    func set(_ handle: Handle, _ option: CURLoption, _ value: Int) -> CURLcode {
        setInteger(handle, option, value)
    }

    /// A pointer option: a C string, a list, a callback or its user data.
    @discardableResult
    func set(_ handle: Handle, _ option: CURLoption, pointer: UnsafeRawPointer?) -> CURLcode {
        setPointer(handle, option, pointer)
    }

    /// A `long` piece of information about the last transfer.
    func info(_ handle: Handle, _ item: CURLINFO) -> Int? {
        var value = 0
        return getInfo(handle, item, &value) == CURLE_OK ? value : nil
    }
}
