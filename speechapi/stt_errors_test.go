package speechapi_test

import (
	"errors"

	"github.com/voxform/voxform/speechapi"
)

func asServiceError(err error) (*speechapi.Error, bool) {
	var se *speechapi.Error
	ok := errors.As(err, &se)
	return se, ok
}
