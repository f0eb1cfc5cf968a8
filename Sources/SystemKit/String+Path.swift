extension String {
    /// The folder part of a file path, as `dirname` would give it but "" for a bare name:
    /// "/etc/tagrouter/tagrouter.yaml" → "/etc/tagrouter", "/dev" → "/", "tagrouter.yaml" → "".
    public var parentPath: String {
        let path = count > 1 && hasSuffix("/") ? String(dropLast()) : self
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
