// Command gomodzip writes a Go module, laid out in a folder, as the files a module proxy serves
// (list, .info, .mod, .zip under <module>/@v/), with golang.org/x/mod/zip enforcing the go
// command's own rules for module zips (paths, sizes, no nested modules).
//
//	go run ./scripts/release/gomodzip -dir STAGED -module PATH -version vX.Y.Z -proxy OUT_DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

func main() {
	dir := flag.String("dir", "", "the module's folder (go.mod at its top)")
	path := flag.String("module", "", "the module path")
	version := flag.String("version", "", "the version, vX.Y.Z")
	proxy := flag.String("proxy", "", "the proxy folder to write into")
	commitTime := flag.Int64("time", 0, "the version's time (Unix seconds), for .info")
	flag.Parse()
	if err := run(*dir, *path, *version, *proxy, *commitTime); err != nil {
		fmt.Fprintln(os.Stderr, "gomodzip:", err)
		os.Exit(1)
	}
}

func run(dir, path, version, proxy string, commitTime int64) error {
	if dir == "" || path == "" || version == "" || proxy == "" {
		return fmt.Errorf("-dir, -module, -version and -proxy are all needed")
	}
	mv := module.Version{Path: path, Version: version}
	if err := module.Check(path, version); err != nil {
		return err
	}
	escaped, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	at := filepath.Join(proxy, escaped, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	zipFile, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		return err
	}
	if err := modzip.CreateFromDir(zipFile, mv, dir); err != nil {
		zipFile.Close()
		return err
	}
	if err := zipFile.Close(); err != nil {
		return err
	}
	goMod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(at, version+".mod"), goMod, 0o644); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    string
	}{version, time.Unix(commitTime, 0).UTC().Format(time.RFC3339)})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(at, version+".info"), info, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(at, "list"), []byte(version+"\n"), 0o644)
}
