import CGLib

/// GIO's asynchronous calls (`*_async`) with a Swift closure for their completion.
///
/// Such a call takes a `GAsyncReadyCallback` and user data, and calls back exactly once, on
/// the thread-default main context of the thread that made it. The closure is boxed and passed
/// retained as that user data; the callback takes the box back as it runs the closure, so
/// whatever the closure holds (the object waiting for the result) lives until the call ended.
public enum AsyncCall {
    /// Makes the call `start` describes, handing it the callback and user data to pass to the
    /// `*_async` function (exactly once); `completion` then gets the call's `GAsyncResult`, for
    /// its `*_finish`.
    public static func start(
        _ start: (GAsyncReadyCallback, gpointer) -> Void, completion: @escaping (OpaquePointer?) -> Void
    ) {
        let callback: GAsyncReadyCallback = { _, result, data in
            Unmanaged<CompletionBox>.fromOpaque(data!).takeRetainedValue().completion(result)
        }
        start(callback, Unmanaged.passRetained(CompletionBox(completion)).toOpaque())
    }

    private final class CompletionBox {
        let completion: (OpaquePointer?) -> Void
        init(_ completion: @escaping (OpaquePointer?) -> Void) { self.completion = completion }
    }
}
