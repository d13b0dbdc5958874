package rmqrebalance

/*
#include "rmq_go.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"
)

// Error is a failed call: the library's result code, the simple name of the exception the Java
// client throws for the same input ("IllegalArgumentException", "NullPointerException", ...), and
// the library's full message, as Rust, C, Python and Java users see it.
type Error struct {
	Code          int
	JavaException string
	Message       string
}

func (e *Error) Error() string {
	if e.JavaException == "" {
		return e.Message
	}
	return e.JavaException + ": " + e.Message
}

// The simple names of the Java exceptions the Go side names itself (errors it finds before
// calling the library). The library names every other error's exception; a test checks these
// against the names the C API gives.
const (
	javaIllegalArgument      = "IllegalArgumentException"
	javaNullPointer          = "NullPointerException"
	javaUnsupportedOperation = "UnsupportedOperationException" // Java's own, for what a class cannot do
)

// Result codes the Go side acts on or gives, by their names in the C header.
const (
	codeNotPositional      = C.RMQ_RESULT_NOT_POSITIONAL
	codeNoConfiguredQueues = C.RMQ_RESULT_NO_CONFIGURED_QUEUES
	// codeGoSide is the Code of an error the Go side finds before calling the library: an
	// argument outside what the library can take (a nil queue, a queue id beyond Java's int, a
	// string with a NUL byte).
	codeGoSide = C.RMQ_RESULT_OUT_OF_RANGE
	// Codes whose Java exception the Go side's names are checked against (in the tests).
	codeEmptyQueueList   = C.RMQ_RESULT_EMPTY_QUEUE_LIST
	codeConsumeIdcsUnset = C.RMQ_RESULT_CONSUME_IDCS_UNSET
)

// libraryJavaName is the library's simple name for the Java exception of code.
func libraryJavaName(code C.rmq_result) string {
	return C.GoString(C.rmq_result_java_exception(C.uint32_t(code)))
}

// takeError turns a failed call's code and detail into an *Error and frees the detail.
func takeError(rc C.rmq_result, detail *C.go_rmq_error) error {
	if rc == 0 {
		return nil
	}
	e := &Error{Code: int(rc)}
	if detail.message != nil {
		e.Message = C.GoString(detail.message)
		C.free(unsafe.Pointer(detail.message))
		detail.message = nil
	} else {
		e.Message = fmt.Sprintf("rmq_result %d", int(rc))
	}
	if detail.java != nil {
		e.JavaException = C.GoString(detail.java)
	}
	return e
}

// goError is an error the Go side finds before calling the library (Java's exception name too).
func goError(java, format string, args ...any) *Error {
	return &Error{Code: int(codeGoSide), JavaException: java, Message: fmt.Sprintf(format, args...)}
}

// noNUL refuses a string that C cannot carry: cut at its NUL byte it would be another string, and
// the answer would be wrong without a word (the C API refuses what it cannot represent too).
func noNUL(what, s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return goError(javaIllegalArgument, "%s %q contains a NUL byte, which the library cannot take", what, s)
	}
	return nil
}

// firstError is the first non-nil of errs.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// cString is C.CString for a string checked by noNUL; the caller frees it.
func cString(what, s string) (*C.char, error) {
	if err := noNUL(what, s); err != nil {
		return nil, err
	}
	return C.CString(s), nil
}
