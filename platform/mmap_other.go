//go:build !linux && !darwin

package platform

import (
	"errors"
	"os"
)

func mapFile(*os.File, int) ([]byte, func() error, error) {
	return nil, nil, errors.ErrUnsupported
}
