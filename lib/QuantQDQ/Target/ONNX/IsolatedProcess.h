//===- IsolatedProcess.h - work in a forked child ---------------*- C++ -*-===//
//
// Code that may crash or hang on hostile input (ONNX's inference
// functions) runs in a forked child, which shares this process's pages
// copy-on-write (no weight is copied) and sends its answer back on a socket
// pair: a crash or a time-out is an error message, never the tool's end.
// Where the platform cannot fork, the work runs in this process.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTQDQ_LIB_TARGET_ONNX_ISOLATEDPROCESS_H
#define QUANTQDQ_LIB_TARGET_ONNX_ISOLATEDPROCESS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <mutex>
#include <string>

#if defined(__unix__)
#include <sys/types.h>
#endif

namespace mlir::quant_qdq {

/// What a forked child sent back, or why it sent nothing usable.
struct ChildReply {
  std::string reply;
  /// Empty when the child exited normally after writing `reply`.
  std::string failure;
};

/// Runs `work` in a forked child and returns the bytes it produced. A
/// crash, a non-zero exit or running past `timeoutMs` is a failure naming
/// `what`.
ChildReply runIsolated(llvm::function_ref<std::string()> work,
                       llvm::StringRef what, int timeoutMs);

/// A child process, forked once, that answers requests with `answer`: one
/// fork (about 10 ms for a 500 MB process) instead of one per request,
/// which for the inference of ViT-B/16's 400 nodes refined after import
/// cost 4.7 s. Requests and replies are messages on a socket pair: a dead
/// child is an error, not SIGPIPE. A child that dies or hangs is reaped and
/// the next request forks a new one.
class IsolatedServer {
public:
  /// `what` names the work in failures.
  IsolatedServer(std::function<std::string(const std::string &)> answer,
                 std::string what)
      : answer(std::move(answer)), what(std::move(what)) {}
  ~IsolatedServer() { stop(); }

  /// The reply to `request`, or a failure saying why there is none. Where
  /// no child can start, this process answers.
  ChildReply ask(const std::string &request);

private:
  bool start();
  /// Ends the child; returns how it ended.
  std::string stop();

  std::function<std::string(const std::string &)> answer;
  std::string what;
  std::mutex mutex;
#if defined(__unix__)
  pid_t pid = -1;
  int fd = -1;
#endif
};

} // namespace mlir::quant_qdq

#endif // QUANTQDQ_LIB_TARGET_ONNX_ISOLATEDPROCESS_H
