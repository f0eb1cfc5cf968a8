extension String {
    /// The folder part of a file path, as `dirname` would give it but "" for a bare name:
    /// "/etc/tagrouter/tagrouter.yaml" → "/etc/tagrouter", "/dev" → "/", "tagrouter.yaml" → "".
    public var parentPath: String {
        let path = count > 1 && hasSuffix("/") ? String(dropLast()) : self
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The path made absolute from `directory` (when it is relative) and tidied without
    /// touching the disk: repeated slashes and `.` parts dropped, `..` kept (dropped with the
    /// part before it, it would name another file when that part is a symlink), symlinks
    /// not resolved. "./tagrouter.yaml" from "/home/pi" → "/home/pi/tagrouter.yaml".
    public func absolutePath(from directory: String) -> String {
        let joined = hasPrefix("/") ? self : directory + "/" + self
        return "/" + joined.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }
}
