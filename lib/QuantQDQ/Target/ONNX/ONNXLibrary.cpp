//===- ONNXLibrary.cpp - calls into the ONNX library, exceptions caught ---===//
//
// The ONNX library reports errors by throwing; LLVM code is built without
// exceptions. This file alone is compiled with -fexceptions (see
// CMakeLists.txt) and turns every exception into a message, so that no
// exception crosses into the rest of the tool.
//
//===----------------------------------------------------------------------===//

#include "ONNXCommon.h"

#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

#include <exception>

#if defined(__unix__)
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

using namespace mlir::quant_qdq;

/// Runs ONNX shape inference in this process.
static std::string inferShapesInProcess(onnx::ModelProto &model) {
  try {
    onnx::ShapeInferenceOptions options(/*check_type_val=*/false,
                                        /*strict_mode_val=*/0,
                                        /*data_prop_val=*/false);
    onnx::shape_inference::InferShapes(
        model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception &e) {
    return e.what();
  } catch (...) {
    return "unknown error in ONNX shape inference";
  }
  return {};
}

#if defined(__unix__)
/// Writes all of `data` to `fd`.
static bool writeAll(int fd, const std::string &data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += size_t(n);
  }
  return true;
}
#endif

// ONNX's shape inference is not safe on hostile input: fuzzing found
// segmentation faults (Conv with an extra output) and non-termination
// (pooling over a 2^40 dimension) in ONNX 1.12. It runs in a forked child
// that sends back the inferred value_info; a crash or a time-out costs the
// intermediate shapes, never the tool. The child shares the model's pages
// copy-on-write: no weight is copied.
std::string onnx_io::inferShapes(onnx::ModelProto &model) {
#if defined(__unix__)
  int fds[2];
  if (::pipe(fds) != 0)
    return inferShapesInProcess(model);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return inferShapesInProcess(model);
  }
  if (pid == 0) {
    ::close(fds[0]);
    // A crash here is expected on bad input and reported by the parent: no
    // stack dump from the inherited LLVM handlers, no output of ONNX's.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
      ::signal(sig, SIG_DFL);
    int devNull = ::open("/dev/null", O_WRONLY);
    if (devNull >= 0)
      ::dup2(devNull, STDERR_FILENO);
    std::string error = inferShapesInProcess(model);
    std::string reply;
    if (error.empty()) {
      onnx::GraphProto inferred;
      *inferred.mutable_value_info() = model.graph().value_info();
      reply = "0" + inferred.SerializeAsString();
    } else {
      reply = "1" + error;
    }
    _exit(writeAll(fds[1], reply) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string reply;
  char buffer[1 << 16];
  bool timedOut = false;
  constexpr int kTimeoutMs = 60000;
  for (;;) {
    struct pollfd pfd = {fds[0], POLLIN, 0};
    int ready = ::poll(&pfd, 1, kTimeoutMs);
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
    reply.append(buffer, size_t(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timedOut)
    return "ONNX shape inference did not finish in 60 s";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || reply.empty())
    return WIFSIGNALED(status) ? "ONNX shape inference crashed (signal " +
                                     std::to_string(WTERMSIG(status)) + ")"
                               : std::string("ONNX shape inference failed");
  if (reply[0] == '1')
    return reply.substr(1);
  onnx::GraphProto inferred;
  if (!inferred.ParseFromArray(reply.data() + 1, int(reply.size() - 1)))
    return "ONNX shape inference returned unreadable shapes";
  model.mutable_graph()->mutable_value_info()->Swap(
      inferred.mutable_value_info());
  return {};
#else
  return inferShapesInProcess(model);
#endif
}

std::string onnx_io::verifyNode(const onnx::NodeProto &node, int64_t opset) {
  try {
    std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    if (const onnx::OpSchema *schema =
            onnx::OpSchemaRegistry::Schema(node.op_type(), int(opset), domain))
      schema->Verify(node);
  } catch (const std::exception &e) {
    return e.what();
  } catch (...) {
    return "unknown error in ONNX node verification";
  }
  return {};
}

std::string onnx_io::inferNodeTypes(
    onnx::NodeProto &node, int64_t opset,
    llvm::ArrayRef<onnx::TypeProto *> inputTypes,
    llvm::ArrayRef<const onnx::TensorProto *> inputData,
    std::vector<onnx::TypeProto> &outputTypes) {
  try {
    std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    const onnx::OpSchema *schema =
        onnx::OpSchemaRegistry::Schema(node.op_type(), int(opset), domain);
    if (!schema)
      return "ONNX has no schema for it at opset " + std::to_string(opset);
    // The inference functions trust the node's arity and attribute types:
    // a node that does not conform never reaches them.
    schema->Verify(node);
    // Ops defined as functions of other ops (LessOrEqual, ...) are
    // inferred through their body, as whole-model inference does.
    bool asFunction = !schema->has_type_and_shape_inference_function() &&
                      schema->HasFunction() && schema->GetFunction();
    if (!schema->has_type_and_shape_inference_function() && !asFunction)
      return "its ONNX schema has no type inference";
    std::unordered_map<std::string, onnx::TypeProto *> types;
    std::unordered_map<std::string, const onnx::TensorProto *> data;
    for (int i = 0; i < node.input_size(); ++i) {
      const std::string &name = node.input(i);
      if (name.empty() || size_t(i) >= inputTypes.size())
        continue;
      if (inputTypes[i])
        types[name] = inputTypes[i];
      if (i < int(inputData.size()) && inputData[i])
        data[name] = inputData[i];
    }
    onnx::shape_inference::InferenceContextImpl context(node, types, data,
                                                        /*sparse=*/{});
    if (asFunction)
      onnx::shape_inference::InferShapeForFunctionNode(
          *schema->GetFunction(), onnx::OpSchemaRegistry::Instance(), context);
    else
      schema->GetTypeAndShapeInferenceFunction()(context);
    outputTypes = std::move(context.allOutputTypes_);
  } catch (const std::exception &e) {
    return e.what();
  } catch (...) {
    return "unknown error in ONNX type inference";
  }
  return {};
}

static const onnx::OpSchema *findSchema(llvm::StringRef opType,
                                        llvm::StringRef domain, int64_t opset) {
  try {
    std::string d = domain == "ai.onnx" ? std::string() : domain.str();
    return onnx::OpSchemaRegistry::Schema(opType.str(), int(opset), d);
  } catch (...) {
    return nullptr;
  }
}

int onnx_io::getSchemaAttributeType(llvm::StringRef opType,
                                    llvm::StringRef domain, int64_t opset,
                                    llvm::StringRef attrName) {
  const onnx::OpSchema *schema = findSchema(opType, domain, opset);
  if (!schema)
    return 0;
  auto it = schema->attributes().find(attrName.str());
  return it == schema->attributes().end() ? 0 : int(it->second.type);
}

std::string onnx_io::getSchemaInputName(llvm::StringRef opType,
                                        llvm::StringRef domain, int64_t opset,
                                        unsigned index) {
  const onnx::OpSchema *schema = findSchema(opType, domain, opset);
  if (!schema || index >= schema->inputs().size())
    return {};
  const onnx::OpSchema::FormalParameter &input = schema->inputs()[index];
  if (input.GetOption() == onnx::OpSchema::Variadic)
    return {};
  return input.GetName();
}
