import Glibc

/// The pipes made for one spawn: until `keepParentEnds()`, everything made is
/// closed on the way out (so a failed spawn leaks nothing); after it, only the
/// child's ends are, and the parent's ends are non-blocking.
struct PipeSet {
    /// The two ends of one pipe, by who uses them.
    struct Ends {
        var parent: Int32
        var child: Int32
    }

    private var made: [Ends] = []
    private var spawned = false

    mutating func make(for input: ChildOptions.Input) throws(ChildProcessError) -> Ends? {
        if case .null = input { return nil }
        let (read, write) = try Self.makePipe()
        return remember(Ends(parent: write, child: read))
    }

    mutating func make(for output: ChildOptions.Output) throws(ChildProcessError) -> Ends? {
        switch output {
        case .null, .inherit: return nil
        case .tail, .lines:
            let (read, write) = try Self.makePipe()
            return remember(Ends(parent: read, child: write))
        }
    }

    mutating func keepParentEnds() {
        spawned = true
        for ends in made { _ = fcntl(ends.parent, F_SETFL, fcntl(ends.parent, F_GETFL) | O_NONBLOCK) }
    }

    func closeAll() {
        for ends in made {
            close(ends.child)
            if !spawned { close(ends.parent) }
        }
    }

    private mutating func remember(_ ends: Ends) -> Ends {
        made.append(ends)
        return ends
    }

    /// A close-on-exec pipe whose ends are above 2, so mapping them onto the
    /// child's 0, 1 and 2 never overwrites one with another. (`pipe2` is a GNU
    /// extension the Swift `Glibc` module hides; a descriptor that leaks into a
    /// concurrent spawn in between is closed there by `closefrom`.)
    static func makePipe() throws(ChildProcessError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .pipeFailed(errno: errno) }
        for index in ends.indices {
            let moved = fcntl(ends[index], F_DUPFD_CLOEXEC, 3)
            let failure = errno
            close(ends[index])
            ends[index] = moved
            if moved < 0 {
                for end in ends where end >= 0 { close(end) }
                throw .pipeFailed(errno: failure)
            }
        }
        return (ends[0], ends[1])
    }
}
