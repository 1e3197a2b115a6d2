package recog

import (
	"archive/zip"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"strings"
)

func isZip(up upload) bool {
	if strings.EqualFold(path.Ext(up.Name), ".zip") || up.ContentType == "application/zip" {
		return true
	}
	f, err := os.Open(up.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4)
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == "PK\x03\x04"
}

// addZip expands a ZIP archive into the job's files, within the documented
// limits: 50 MB compressed, 200 MB expanded, 10 MB per file.
func (s *service) addZip(j *job, f *form, up upload) *apiError {
	zr, err := zip.OpenReader(up.Path)
	if err != nil {
		return invalid("%s is not a valid ZIP archive: %v", up.Name, err)
	}
	defer zr.Close()
	var expanded uint64
	for _, e := range zr.File {
		expanded += e.UncompressedSize64
	}
	if expanded > maxZipExpanded {
		return &apiError{http.StatusBadRequest, "ZIP_TOO_LARGE",
			fmt.Sprintf("ZIP archive %s expands to more than %s", up.Name, megabytes(maxZipExpanded))}
	}
	for _, e := range zr.File {
		base := path.Base(e.Name)
		if e.FileInfo().IsDir() || strings.HasPrefix(e.Name, "__MACOSX/") || strings.HasPrefix(base, ".") {
			continue
		}
		if len(j.files) >= maxJobFiles {
			return &apiError{http.StatusBadRequest, "TOO_MANY_FILES",
				fmt.Sprintf("more than %d files in one job, counting files inside ZIP archives", maxJobFiles)}
		}
		if aerr := s.addZipEntry(j, f, e); aerr != nil {
			return aerr
		}
	}
	return nil
}

func (s *service) addZipEntry(j *job, f *form, e *zip.File) *apiError {
	if e.UncompressedSize64 > maxUploadFile {
		return &apiError{http.StatusBadRequest, "FILE_TOO_LARGE",
			fmt.Sprintf("file %s is larger than %s", e.Name, megabytes(maxUploadFile))}
	}
	if !jobFormat(e.Name) {
		return s.addAudio(j, e.Name, "") // skipped unread: nothing to expand
	}
	rc, err := e.Open()
	if err != nil {
		return invalid("ZIP entry %s: %v", e.Name, err)
	}
	defer rc.Close()
	tmp, err := os.CreateTemp(f.dir, "zip-*"+path.Ext(e.Name))
	if err != nil {
		return &apiError{http.StatusInternalServerError, "INTERNAL_ERROR", "could not expand the ZIP archive"}
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, io.LimitReader(rc, maxUploadFile+1))
	tmp.Close()
	if err != nil {
		return invalid("ZIP entry %s: %v", e.Name, err)
	}
	if n > maxUploadFile {
		return &apiError{http.StatusBadRequest, "FILE_TOO_LARGE",
			fmt.Sprintf("file %s is larger than %s", e.Name, megabytes(maxUploadFile))}
	}
	return s.addAudio(j, e.Name, tmp.Name())
}
