// The new token's field selects itself on focus, ready to copy. A file, not an inline handler: the
// Content-Security-Policy allows scripts from this origin only (backend/core/middleware.py).
const field = document.getElementById("new-token");
if (field) field.addEventListener("focus", () => field.select());
