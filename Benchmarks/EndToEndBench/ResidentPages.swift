import Foundation

/// Where a running process's resident pages are, summed from `/proc/PID/smaps` (kB): anonymous memory (heap, stacks,
/// relocated and written data), the pages of its own executable file, and those of the shared libraries it maps.
struct ResidentPages {
    var total = 0
    var anonymous = 0
    /// File-backed pages of the process's executable (code, read-only data, metadata read in place).
    var executable = 0
    /// File-backed pages of everything else it maps: the shared libraries and the loader.
    var libraries = 0
    /// The text of `/proc/PID/smaps` these figures were summed from.
    var smaps = ""

    /// Reads the process `pid` now; nil once it has exited.
    init?(pid: pid_t) {
        // Read to the end: /proc's files report no size, so a read sized by it stops early.
        guard let data = FileHandle(forReadingAtPath: "/proc/\(pid)/smaps")?.readDataToEndOfFile(), !data.isEmpty,
              let executablePath = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        else { return nil }
        smaps = String(decoding: data, as: UTF8.self)
        var mappedFile = ""
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let key = fields.first else { continue }
            if key.contains("-"), !key.hasSuffix(":") {  // a mapping's header: range, perms, offset, device, inode, path
                mappedFile = fields.count > 5 && fields[5].hasPrefix("/") ? fields[5...].joined(separator: " ") : ""
                continue
            }
            guard fields.count >= 2, let kB = Int(fields[1]) else { continue }
            switch key {
            case "Rss:":
                total += kB
                if mappedFile == executablePath { executable += kB } else if !mappedFile.isEmpty { libraries += kB }
            case "Anonymous:":
                anonymous += kB
                // Written pages of a file mapping (relocated data) count as anonymous, not as the file's.
                if mappedFile == executablePath { executable -= kB } else if !mappedFile.isEmpty { libraries -= kB }
            default: break
            }
        }
    }

    /// `kB` in mebibytes, as the table prints it.
    static func mebibytes(_ kB: Int) -> String { String(format: "%.1f MiB", Double(kB) / 1024) }

    /// One line of the breakdown: anonymous, the executable's own pages, the libraries'.
    var breakdown: String {
        "anonymous \(Self.mebibytes(anonymous)) · its own file \(Self.mebibytes(executable)) · shared libraries \(Self.mebibytes(libraries))"
    }
}
