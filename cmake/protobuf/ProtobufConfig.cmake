# Stands in for protobuf's own CMake package, which Debian's protobuf does
# not ship and ONNX's package configuration asks for
# (find_package(Protobuf CONFIG)): CMake's FindProtobuf module defines the
# same protobuf::libprotobuf target from Debian's files.
find_package(Protobuf MODULE REQUIRED)
