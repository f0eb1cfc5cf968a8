import FoundationEssentials
import Glibc

/// A user as a machine's `/etc/passwd` and `/etc/group` describe it (read under a
/// root folder, so tests can make one up): whose access to readers the doctor judges.
public struct MachineAccount: Sendable, Equatable {
    public var name: String
    public var uid: uid_t
    public var gid: gid_t
    /// The primary group and every group that lists the user as a member.
    public var groups: Set<gid_t>

    /// The account `name` under `root`, nil when there is none.
    public static func lookup(_ name: String, root: String) -> MachineAccount? {
        let passwd = Self.entries(read("etc/passwd", under: root))
        guard let entry = passwd.first(where: { $0.first == name }), entry.count > 3,
            let uid = uid_t(entry[2]), let gid = gid_t(entry[3])
        else { return nil }
        var groups: Set<gid_t> = [gid]
        for group in Self.entries(read("etc/group", under: root)) where group.count > 3 {
            if group[3].split(separator: ",").contains(Substring(name)), let id = gid_t(group[2]) { groups.insert(id) }
        }
        return MachineAccount(name: name, uid: uid, gid: gid, groups: groups)
    }

    /// The name of group `gid` under `root`, or the number.
    public static func groupName(_ gid: gid_t, root: String) -> String {
        let groups = Self.entries(read("etc/group", under: root))
        return groups.first { $0.count > 2 && $0[2] == String(gid) }?.first ?? String(gid)
    }

    /// The text of `path` (relative) under `root`, nil when it cannot be read.
    private static func read(_ path: String, under root: String) -> String? {
        try? String(contentsOfFile: (root.hasSuffix("/") ? root : root + "/") + path, encoding: .utf8)
    }

    private static func entries(_ text: String?) -> [[String]] {
        (text ?? "").split(separator: "\n").map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
    }
}
