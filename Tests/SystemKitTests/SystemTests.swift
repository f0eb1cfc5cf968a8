import Foundation
import SystemKit
import Testing

/// The small POSIX stand-ins TagCore gives for what only the full Foundation had.
@Suite struct SystemTests {
    /// The body runs on a thread of its own, which the kernel knows by the name given (cut to 15 bytes).
    @Test func dedicatedThreadRunsTheBodyUnderItsName() async throws {
        let (seen, continuation) = AsyncStream.makeStream(of: (name: String, isOtherThread: Bool).self)
        let caller = pthread_self()
        DedicatedThread.start(name: "reader front-door-long") {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "unreadable"
            continuation.yield((name, pthread_equal(pthread_self(), caller) == 0))
            continuation.finish()
        }
        let report = try #require(await seen.first { _ in true })
        #expect(report.name == "reader front-do\n")
        #expect(report.isOtherThread)
    }

    @Test(arguments: [
        ("  tag  ", "tag"), ("\t\n tag one\n", "tag one"), ("", ""), (" \n\t ", ""), ("tag", "tag"),
    ])
    func trimmingWhitespace(text: String, expected: String) {
        #expect(text.trimmingWhitespace() == expected)
        #expect(text[...].trimmingWhitespace() == expected, "a Substring trims the same")
    }

    @Test func trimmingChosenCharacters() {
        #expect("\0Raspberry Pi 4\n\0".trimming { $0 == "\0" || $0 == "\n" } == "Raspberry Pi 4")
    }
}

@Suite struct StringHelperTests {
    @Test(arguments: [("7", 2, "07"), ("12345", 3, "12345"), ("", 3, "000"), ("18446744073709551615", 20, "18446744073709551615")])
    func leftPaddedWithZeros(text: String, length: Int, expected: String) {
        #expect(text.leftPadded(toLength: length, with: "0") == expected)
    }

    @Test func rightPaddedWithSpaces() {
        #expect("run".rightPadded(toLength: 6) + "|" == "run   |")
        #expect("simulate".rightPadded(toLength: 4) == "simulate")
    }

    /// What NSString's deletingLastPathComponent gave for the paths the daemon meets.
    @Test(arguments: [
        ("/etc/tagrouter/tagrouter.yaml", "/etc/tagrouter"), ("tagrouter.yaml", ""), ("/dev", "/"),
        ("config/tagrouter.yaml", "config"), ("/sys/class/tty/ttyS0/", "/sys/class/tty"), ("/", "/"),
    ])
    func parentPath(path: String, expected: String) {
        #expect(path.parentPath == expected)
    }

    /// A path made absolute names the same file from any folder: relative ones start at the directory,
    /// `.` and repeated slashes go, `..` stays (a symlink before it would make dropping it name another file).
    @Test(arguments: [
        ("tagrouter.yaml", "/home/pi/tagrouter.yaml"), ("./tagrouter.yaml", "/home/pi/tagrouter.yaml"),
        ("conf//./t.yaml", "/home/pi/conf/t.yaml"), ("../etc/t.yaml", "/home/pi/../etc/t.yaml"), ("/etc/./t.yaml", "/etc/t.yaml"),
    ])
    func absolutePath(path: String, expected: String) {
        #expect(path.absolutePath(from: "/home/pi/") == expected)
    }
}
