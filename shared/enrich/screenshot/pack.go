package screenshot

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/andybalholm/brotli"
)

// A pack is the serverless Chromium of the npm package @sparticuz/chromium
// (its bin/ directory): chromium.br, the headless shell compressed with
// Brotli, and al2023.tar.br, fonts.tar.br and swiftshader.tar.br, the
// shared libraries, fonts and software GL it needs on Amazon Linux 2023,
// where the Lambda runtime has none. The AWS stack ships it as a layer of
// the enrichment worker (/opt/chromium); the worker unpacks it into /tmp
// on its first screenshot.

// packFlags are the switches the pack's headless shell needs in a Lambda
// sandbox: one process (no zygote, no sandbox: the Lambda runs as an
// unprivileged user without the namespaces Chromium's sandbox needs).
var packFlags = map[string]any{
	"single-process":  true,
	"no-zygote":       true,
	"in-process-gpu":  true,
	"use-gl":          "angle",
	"use-angle":       "swiftshader",
	"disable-webgl":   true,
	"disk-cache-size": "33554432",
}

// maxUnpacked bounds what one file of a pack may inflate to (the shell is
// about 200 MB): a corrupt or hostile pack cannot fill the disk.
const maxUnpacked = 512 << 20

// Unpack inflates the pack in src into dst (created if needed) and returns
// the executable and the environment it runs with. A pack already
// unpacked there is reused.
func Unpack(src, dst string) (exe string, env []string, err error) {
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return "", nil, fmt.Errorf("screenshot: unpack: %w", err)
	}
	exe = filepath.Join(dst, "chromium")
	env = []string{
		"LD_LIBRARY_PATH=" + filepath.Join(dst, "al2023", "lib") + ":" + dst,
		"FONTCONFIG_PATH=" + filepath.Join(dst, "fonts"),
		"HOME=" + dst,
	}
	if _, err := os.Stat(exe); err == nil {
		return exe, env, nil
	}
	for _, part := range []struct{ file, into string }{
		{"al2023.tar.br", filepath.Join(dst, "al2023")},
		{"fonts.tar.br", filepath.Join(dst, "fonts")},
		{"swiftshader.tar.br", dst},
	} {
		if err := untar(filepath.Join(src, part.file), part.into); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", nil, err
		}
	}
	// The executable last, under a temporary name: its presence says the
	// whole pack is unpacked.
	tmp := exe + ".part"
	if err := inflate(filepath.Join(src, "chromium.br"), tmp); err != nil {
		return "", nil, err
	}
	if err := os.Rename(tmp, exe); err != nil {
		return "", nil, fmt.Errorf("screenshot: unpack: %w", err)
	}
	return exe, env, nil
}

func inflate(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("screenshot: unpack: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o700)
	if err != nil {
		return fmt.Errorf("screenshot: unpack: %w", err)
	}
	n, err := io.Copy(out, io.LimitReader(brotli.NewReader(in), maxUnpacked+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > maxUnpacked {
		err = errors.New("larger than the unpacking limit")
	}
	if err != nil {
		return fmt.Errorf("screenshot: unpack %s: %w", filepath.Base(src), err)
	}
	return nil
}

func untar(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tr := tar.NewReader(brotli.NewReader(in))
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("screenshot: unpack %s: %w", filepath.Base(src), err)
		}
		name := filepath.Clean(h.Name)
		if name == "." || filepath.IsAbs(name) || strings.HasPrefix(name, ".."+string(filepath.Separator)) || name == ".." {
			continue // nothing outside dst
		}
		path := filepath.Join(dst, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o700); err != nil {
				return err
			}
		case tar.TypeReg:
			if total += h.Size; total > maxUnpacked {
				return fmt.Errorf("screenshot: unpack %s: larger than the unpacking limit", filepath.Base(src))
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return err
			}
			out, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o700)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("screenshot: unpack %s: %w", filepath.Base(src), err)
			}
		case tar.TypeSymlink:
			// Library links (libfoo.so.1 -> libfoo.so.1.2) stay inside dst.
			if filepath.IsAbs(h.Linkname) || strings.Contains(h.Linkname, "..") {
				continue
			}
			_ = os.Remove(path)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, path); err != nil {
				return err
			}
		}
	}
}
