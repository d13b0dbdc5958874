package rmqrebalance

/*
#include "rmq_go.h"
*/
import "C"

import (
	"fmt"
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

// Result codes the Go side acts on (the header's RMQ_RESULT_*; never renumbered).
const (
	codeNotPositional      = 7
	codeNoConfiguredQueues = 108
)

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
	return &Error{Code: 4, JavaException: java, Message: fmt.Sprintf(format, args...)}
}
