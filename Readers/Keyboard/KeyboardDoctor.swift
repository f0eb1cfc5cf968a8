import FoundationEssentials
import Glibc
import SystemKit
import TagReader

/// `tagrouter doctor` for one configured keyboard-wedge reader: is its input
/// device there, may the service account read it, and has another program
/// grabbed it (tried only when this process may open it).
struct KeyboardDoctor {
    let machine: DoctorMachine

    func checks(_ path: String) -> [DoctorCheck] {
        let what = "keyboard reader \(path)"
        var info = stat()
        guard stat(machine.root + String(path.drop { $0 == "/" }), &info) == 0 else {
            return [.failed("\(what): no such input device", fix: "plug it in, or name it as `ls /dev/input/by-id/` shows it (…-event-kbd)")]
        }
        let group = MachineAccount.groupName(info.st_gid, root: machine.root)
        let mode = String(info.st_mode & 0o777, radix: 8)
        let account = machine.account
        let readable = account.uid == 0
            || (info.st_uid == account.uid && info.st_mode & 0o400 != 0)
            || (account.groups.contains(info.st_gid) && info.st_mode & 0o040 != 0)
            || info.st_mode & 0o004 != 0
        let finding = "\(what) (group \(group), mode \(mode)): \(account.name) \(readable ? "can" : "cannot") read it"
        guard readable else { return [.failed(finding, fix: fix(for: path))] }
        guard machine.root == "/", access(path, R_OK) == 0 else { return [.ok(finding)] }
        if case .grabbed? = KeyboardDriver.probe(path) {
            return [.ok(finding), .failed("\(what): another program has grabbed it", fix: "stop it (`sudo fuser -v \(path)` names it), or the other tagrouter reading it")]
        }
        return [.ok(finding), .ok("\(what): not grabbed by another program")]
    }

    /// The udev rule that admits the device by its USB ids (read from sysfs), or where to find them.
    func fix(for path: String) -> String {
        let node = (try? FileManager.default.destinationOfSymbolicLink(atPath: machine.root + String(path.drop { $0 == "/" }))) ?? path
        let ids = machine.root + "sys/class/input/\(node.split(separator: "/").last ?? "")/device/id/"
        func read(_ name: String) -> String? {
            (try? String(contentsOfFile: ids + name, encoding: .utf8)).map { $0.trimmingWhitespace() }
        }
        guard let vendor = read("vendor"), let product = read("product") else {
            return "add a line with the reader's USB ids (lsusb) to /etc/udev/rules.d/99-tagrouter-keyboard-local.rules, as in the package's /usr/lib/udev/rules.d/99-tagrouter-keyboard.rules (docs/reader.md \"Keyboard-wedge readers\")"
        }
        return "echo 'SUBSYSTEM==\"input\", KERNEL==\"event*\", ATTRS{idVendor}==\"\(vendor)\", ATTRS{idProduct}==\"\(product)\", MODE=\"0640\", GROUP=\"plugdev\"' "
            + "| sudo tee -a /etc/udev/rules.d/99-tagrouter-keyboard-local.rules, then sudo udevadm control --reload-rules && sudo udevadm trigger"
    }
}
