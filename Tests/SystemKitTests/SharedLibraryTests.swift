import Glibc
import SystemKit
import Testing

/// Libraries opened on first use: a real one's function is called, and what is missing is said with the package to install.
@Suite struct SharedLibraryTests {
    @Test func aFunctionLookedUpByNameIsCalled() throws {
        let libc = try SharedLibrary(soname: "libc.so.6", library: "the C library", package: "libc6")
        let length: @convention(c) (UnsafePointer<CChar>?) -> Int = try libc.function("strlen")
        #expect(length("front-door") == 10)
    }

    @Test func aMissingLibraryNamesThePackageAndWhatDlopenSaid() {
        #expect {
            _ = try SharedLibrary(soname: "libtagrouter-absent.so.9", library: "libabsent", package: "libabsent9")
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("libabsent is not available (install the Debian package libabsent9): ")
                && text.contains("libtagrouter-absent.so.9")
        }
    }

    @Test func aMissingSymbolIsNamed() throws {
        let libc = try SharedLibrary(soname: "libc.so.6", library: "the C library", package: "libc6")
        #expect {
            let _: @convention(c) () -> Void = try libc.function("tagrouter_no_such_function")
        } throws: { error in
            "\(error)" == "the C library is not available (install the Debian package libc6): no symbol tagrouter_no_such_function"
        }
    }
}
