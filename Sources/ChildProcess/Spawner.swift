import Glibc

/// The `posix_spawn` call: the child gets its own process group (so a timeout
/// can kill everything it started), default signal dispositions and an empty
/// signal mask (the daemon ignores some signals; its children must not), and
/// no descriptor of the daemon's beyond 0, 1 and 2.
enum Spawner {
    /// What each of the child's descriptors 0, 1, 2 becomes.
    enum Slot {
        case devNull(writable: Bool)
        case inherit
        case descriptor(Int32)
    }

    static func spawn(program: String, command: ChildCommand, slots: [Slot]) throws(ChildProcessError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, slot) in slots.enumerated() {
            switch slot {
            case .devNull(let writable):
                posix_spawn_file_actions_addopen(&actions, Int32(target), "/dev/null", writable ? O_WRONLY : O_RDONLY, 0)
            case .inherit:
                break
            case .descriptor(let descriptor):
                posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(target))
            }
        }
        if let closeFrom = GNUExtensions.addCloseFrom { _ = closeFrom(&actions, 3) }
        if let directory = command.workingDirectory {
            guard let addChdir = GNUExtensions.addChdir else { throw .workingDirectoryUnsupported }
            _ = addChdir(&actions, directory)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = CStringArray(command.arguments)
        let envp = CStringArray(command.environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, &attributes, argv.pointers, envp.pointers)
        guard result == 0 else { throw .spawnFailed(program: program, errno: result) }
        return pid
    }
}

/// glibc's `posix_spawn_file_actions_add{chdir,closefrom}_np`: declared only
/// under `_GNU_SOURCE`, which the Swift `Glibc` module does not define, so they
/// are looked up by name (both take plain pointer and int arguments).
private enum GNUExtensions {
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    static let addChdir: AddChdir? = lookUp("posix_spawn_file_actions_addchdir_np")
    static let addCloseFrom: AddCloseFrom? = lookUp("posix_spawn_file_actions_addclosefrom_np")

    private static func lookUp<Function>(_ name: String) -> Function? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: Function.self)
    }
}

/// A NULL-terminated `char *[]` that frees its strings.
private final class CStringArray {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let count: Int

    init(_ strings: [String]) {
        count = strings.count
        pointers = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
        pointers[strings.count] = nil
    }

    deinit {
        for index in 0..<count { free(pointers[index]) }
        pointers.deallocate()
    }
}
