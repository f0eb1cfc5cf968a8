/// One line of `tagrouter doctor`: what was checked, what was found, and when it
/// is wrong the command that fixes it. A `blocking` failure means no tag can be read.
public struct DoctorCheck: Sendable, Equatable {
    public var passed: Bool
    /// True when this failure stops reading (the doctor then exits non-zero).
    public var blocking: Bool
    /// What was checked and found: "pcscd: running (pid 812), holds /dev/bus/usb/001/007 (ACS ACR122U)".
    public var finding: String
    /// What to run or change, for a failure.
    public var fix: String?

    public static func ok(_ finding: String) -> DoctorCheck {
        DoctorCheck(passed: true, blocking: false, finding: finding, fix: nil)
    }

    public static func failed(_ finding: String, fix: String, blocking: Bool = true) -> DoctorCheck {
        DoctorCheck(passed: false, blocking: blocking, finding: finding, fix: fix)
    }

    /// `✓ finding` or `✗ finding → fix`.
    public var line: String {
        passed ? "✓ \(finding)" : "✗ \(finding) → \(fix ?? "")"
    }
}
