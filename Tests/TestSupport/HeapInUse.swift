import Foundation
import Glibc

/// glibc's count of heap bytes handed out and not yet freed in this process
/// (malloc_info(3): arena bytes taken from the system, less the free chunks,
/// plus mmapped blocks). Unlike resident memory it does not keep what was
/// freed, so a rise means objects are still held.
public func heapBytesInUse() -> Int {
    // malloc.h is not in Swift's Glibc module; the function is looked up instead.
    typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
    guard let symbol = dlsym(nil, "malloc_info") else { fatalError("glibc has no malloc_info") }
    var buffer: UnsafeMutablePointer<CChar>?
    var size = 0
    guard let file = open_memstream(&buffer, &size) else { fatalError("open_memstream failed") }
    _ = unsafeBitCast(symbol, to: MallocInfo.self)(0, file)
    fclose(file)
    defer { free(buffer) }
    let xml = buffer.map { String(cString: $0) } ?? ""
    // After the last arena come the process totals.
    let totals = xml.components(separatedBy: "</heap>").last ?? ""
    func bytes(_ element: String) -> Int {
        guard let start = totals.range(of: "<\(element)")?.upperBound,
              let value = totals[start...].range(of: #"size="(\d+)""#, options: .regularExpression)
        else { return 0 }
        return Int(totals[value].dropFirst(6).dropLast()) ?? 0
    }
    return bytes(#"system type="current""#) - bytes(#"total type="fast""#) - bytes(#"total type="rest""#) + bytes(#"total type="mmap""#)
}
