import Glibc

/// Whether a device node's owner, group and mode let this process read it, or read and write it (what
/// the reader `needs`), judged from the mode bits alone as the kernel does before anything else: `access(2)` cannot tell, as a device cgroup
/// (systemd's `DeviceAllow=`) refuses it too, and telling the two apart is the point (`DeviceSandbox`,
/// libnfc's `doctor`).
public enum DeviceModeBits {
    /// Whether this process may open `path` as it `needs` (reading and writing, or reading), judged from
    /// its mode bits, and the group that owns it.
    public static func access(_ path: String, needs: DeviceNodePath.Access = .readWrite) -> (granted: Bool, group: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return (false, "?") }
        let group = getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? String(info.st_gid)
        let count = getgroups(0, nil)
        var groups = [gid_t](repeating: 0, count: Int(max(count, 0)))
        _ = getgroups(count, &groups)
        let granted = permits(
            mode: UInt32(info.st_mode), owner: info.st_uid, group: info.st_gid,
            user: geteuid(), groups: Set(groups + [getegid()]), needs: needs)
        return (granted, group)
    }

    /// Read (and write, when it `needs` that) permission from mode bits, as the kernel decides it (root may do anything).
    public static func permits(mode: UInt32, owner: uid_t, group: gid_t, user: uid_t, groups: Set<gid_t>, needs: DeviceNodePath.Access = .readWrite) -> Bool {
        if user == 0 { return true }
        let bits: UInt32 = user == owner ? (mode >> 6) & 0o7 : groups.contains(group) ? (mode >> 3) & 0o7 : mode & 0o7
        let wanted: UInt32 = needs == .read ? 0o4 : 0o6
        return bits & wanted == wanted
    }
}
