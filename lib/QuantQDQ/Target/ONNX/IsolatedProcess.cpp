//===- IsolatedProcess.cpp - work in a forked child -----------------------===//

#include "IsolatedProcess.h"

#include "llvm/ADT/Twine.h"

#if defined(__unix__)
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

using namespace mlir::quant_qdq;

#if defined(__unix__)
/// Whether `fd` has bytes to read (or is closed) within 60 s.
static bool waitReadable(int fd) {
  for (;;) {
    struct pollfd pfd = {fd, POLLIN, 0};
    int ready = ::poll(&pfd, 1, /*timeout=*/60000);
    if (ready < 0 && errno == EINTR)
      continue;
    return ready > 0;
  }
}

/// Sends all of `data` on the socket `fd`; false if the peer is gone (no
/// SIGPIPE).
static bool sendAll(int fd, const char *data, size_t size) {
  while (size) {
    ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

/// Receives exactly `size` bytes from the socket `fd`.
static bool receiveAll(int fd, char *data, size_t size) {
  while (size) {
    if (!waitReadable(fd))
      return false;
    ssize_t n = ::recv(fd, data, size, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

/// A message: an 8-byte length, then the bytes.
static bool sendMessage(int fd, const std::string &message) {
  uint64_t size = message.size();
  return sendAll(fd, reinterpret_cast<const char *>(&size), sizeof(size)) &&
         sendAll(fd, message.data(), message.size());
}

static bool receiveMessage(int fd, std::string &message) {
  uint64_t size = 0;
  if (!receiveAll(fd, reinterpret_cast<char *>(&size), sizeof(size)) ||
      size > (uint64_t(1) << 31))
    return false;
  message.resize(size);
  return receiveAll(fd, message.data(), size);
}

/// In a forked child: a crash is expected on bad input and reported by the
/// parent, so the default signal actions (no stack dump from the inherited
/// LLVM handlers), and nothing on stderr.
static void enterChild() {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
    ::signal(sig, SIG_DFL);
  int devNull = ::open("/dev/null", O_WRONLY);
  if (devNull >= 0)
    ::dup2(devNull, STDERR_FILENO);
}
#endif

ChildReply mlir::quant_qdq::runIsolated(llvm::function_ref<std::string()> work,
                                        llvm::StringRef what, int timeoutMs) {
  ChildReply result;
#if defined(__unix__)
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    result.reply = work();
    return result;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    result.reply = work();
    return result;
  }
  if (pid == 0) {
    ::close(fds[0]);
    enterChild();
    std::string reply = work();
    _exit(sendAll(fds[1], reply.data(), reply.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  char buffer[1 << 16];
  bool timedOut = false;
  for (;;) {
    struct pollfd pfd = {fds[0], POLLIN, 0};
    int ready = ::poll(&pfd, 1, timeoutMs);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0) {
      timedOut = true;
      ::kill(pid, SIGKILL);
      break;
    }
    ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    result.reply.append(buffer, size_t(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timedOut)
    result.failure = (what + " did not finish in " +
                      llvm::Twine(timeoutMs / 1000) + " s")
                         .str();
  else if (WIFSIGNALED(status))
    result.failure = (what + " crashed (signal " +
                      llvm::Twine(WTERMSIG(status)) + ")")
                         .str();
  else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
           result.reply.empty())
    result.failure = (what + " failed").str();
#else
  result.reply = work();
#endif
  return result;
}

ChildReply IsolatedServer::ask(const std::string &request) {
#if defined(__unix__)
  std::lock_guard<std::mutex> lock(mutex);
  ChildReply result;
  if (pid <= 0 && !start()) {
    result.reply = answer(request);
    return result;
  }
  if (!sendMessage(fd, request) || !receiveMessage(fd, result.reply)) {
    result.failure = stop();
    result.reply.clear();
  } else if (result.reply.empty()) {
    result.failure = what + " sent an empty reply";
  }
  return result;
#else
  return {answer(request), {}};
#endif
}

#if defined(__unix__)
bool IsolatedServer::start() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return false;
  pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return false;
  }
  if (pid == 0) {
    ::close(fds[0]);
    enterChild();
    std::string request;
    while (receiveMessage(fds[1], request))
      if (!sendMessage(fds[1], answer(request)))
        break;
    _exit(0);
  }
  ::close(fds[1]);
  fd = fds[0];
  return true;
}

std::string IsolatedServer::stop() {
  if (pid <= 0)
    return {};
  // A child that died has closed its end (there is an end of file to
  // read); one that did not answer is hung, and killed.
  struct pollfd pfd = {fd, POLLIN, 0};
  bool hung = ::poll(&pfd, 1, 0) == 0;
  ::close(fd);
  fd = -1;
  if (hung)
    ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  pid = -1;
  if (hung)
    return what + " did not finish in 60 s";
  if (WIFSIGNALED(status))
    return what + " crashed (signal " + std::to_string(WTERMSIG(status)) + ")";
  return what + " failed";
}
#else
bool IsolatedServer::start() { return false; }

std::string IsolatedServer::stop() { return {}; }
#endif
