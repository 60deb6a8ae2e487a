// RUN: not qdq-opt %s 2>&1 | FileCheck %s
// RUN: sh -c 'qdq-opt %s > /dev/null 2>&1; test $? -eq 1'
// RUN: not qdq-opt %s 2>/dev/null | count 0

// Garbage: the error names this file, line 9, column 6, where the parser
// gave up; exit status 1; nothing on stdout.

// CHECK: {{.*}}garbage.mlir:9:6: error: @ identifier expected to start with letter or '_'
    @@@ garbage $$$ ~~~
// CHECK-NEXT: {{^}}    @@@ garbage $$$ ~~~
// CHECK-NEXT: {{^}}     ^
