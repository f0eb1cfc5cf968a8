/// Why the HTTP listener could not start, said so that the user can fix it.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public var description: String

    init(_ description: String) { self.description = description }
}
