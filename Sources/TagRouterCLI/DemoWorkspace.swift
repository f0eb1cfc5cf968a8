@preconcurrency import Glibc
import FoundationEssentials

/// The temporary folder one `tagrouter demo` runs in: the demo config, the
/// simulator's link and control socket, and the daemon's `state_dir`. It is made
/// under `$TMPDIR` (else /tmp) and removed, with everything in it, at the end.
struct DemoWorkspace: Sendable {
    let directory: String
    var config: String { directory + "/tagrouter.yaml" }
    /// The simulated reader; the config names it `pn532_uart:pn532`, relative to `directory`.
    var link: String { directory + "/pn532" }
    var control: String { directory + "/pn532.sock" }
    /// The demo daemon's control socket.
    var controlSocket: String { directory + "/control.sock" }

    /// The demo config embedded in the binary (Resources/demo.yaml).
    static let configText = String(decoding: PackageResources.demo_yaml, as: UTF8.self)

    /// Makes a fresh folder and writes the config into it.
    static func create() throws(CLIError) -> DemoWorkspace {
        var template = Array((FileManager.default.temporaryDirectory.path + "/tagrouter-demo-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw .runtime("cannot make a temporary folder in \(FileManager.default.temporaryDirectory.path): \(String(cString: strerror(errno))); set TMPDIR to a writable folder")
        }
        let workspace = DemoWorkspace(directory: URL(fileURLWithPath: String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)).standardizedFileURL.path)
        do {
            try configText.write(toFile: workspace.config, atomically: true, encoding: .utf8)
        } catch {
            workspace.remove()
            throw .runtime("cannot write the demo config \(workspace.config): \(error)")
        }
        return workspace
    }

    /// Removes the folder and everything in it.
    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
