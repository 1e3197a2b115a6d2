package speechapi_test

import (
	"errors"
	"net/http"

	"github.com/voxform/voxform/speechapi"
)

func asServiceError(err error) (*speechapi.Error, bool) {
	var se *speechapi.Error
	ok := errors.As(err, &se)
	return se, ok
}

func recogNewGet(url string) (*http.Request, error) { return http.NewRequest(http.MethodGet, url, nil) }

func recogDo(req *http.Request) (*http.Response, error) { return http.DefaultClient.Do(req) }
