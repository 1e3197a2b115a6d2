package emu

import (
	"encoding/json"
	"net/http"
)

// WriteJSON writes v as a JSON body with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// WriteRESTError writes the synthesis/REST error shape:
// {"success": false, "error": {"type": T, "message": M}}.
func WriteRESTError(w http.ResponseWriter, status int, typ, msg string) {
	WriteJSON(w, status, map[string]any{
		"success": false,
		"error":   map[string]string{"type": typ, "message": msg},
	})
}

// WriteBatchError writes the batch jobs error shape: {"error": CODE, "message": M}.
func WriteBatchError(w http.ResponseWriter, status int, code, msg string) {
	WriteJSON(w, status, map[string]any{"error": code, "message": msg})
}

// WriteMissingKey writes the batch jobs 401 shape:
// {"detail": {"error_code": "MISSING_API_KEY", "message": M, "status_code": 401}}.
func WriteMissingKey(w http.ResponseWriter) {
	WriteJSON(w, http.StatusUnauthorized, map[string]any{
		"detail": map[string]any{
			"error_code":  "MISSING_API_KEY",
			"message":     "API key is missing: send it in the X-API-Key-ID header",
			"status_code": http.StatusUnauthorized,
		},
	})
}

// Error types of the documents.
const (
	InvalidRequest     = "INVALID_REQUEST_ERROR"
	RateLimitError     = "RATE_LIMIT_ERROR"
	APIError           = "API_ERROR"
	ServiceUnavailable = "SERVICE_UNAVAILABLE"
	Forbidden          = "FORBIDDEN"
)
