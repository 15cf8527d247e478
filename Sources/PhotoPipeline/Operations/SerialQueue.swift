import Foundation

extension OperationQueue {
    /// A queue that runs one operation at a time, in the order they were added.
    public static func serial(_ name: String, _ quality: QualityOfService = .default) -> OperationQueue {
        let queue = OperationQueue()
        queue.name = name
        queue.maxConcurrentOperationCount = 1
        queue.qualityOfService = quality
        return queue
    }
}
