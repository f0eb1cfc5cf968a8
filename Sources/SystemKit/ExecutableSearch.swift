import Glibc

/// Finds a program the way `execvp` would: a name is looked up in a `PATH`;
/// a name holding a `/` is taken as it is. Shared by the child processes that
/// start programs and the config checks that name them.
public enum ExecutableSearch {
    /// The search path used when the environment has no `PATH`.
    public static let defaultPath = "/usr/local/bin:/usr/bin:/bin"

    /// The first executable regular file called `program` in `searchPath`'s folders (an empty entry is the
    /// current folder); nil when there is none.
    public static func find(_ program: String, in searchPath: String) -> String? {
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + program
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }
}
