/** A form-level message (not tied to one field), announced when it appears. */
export function FormAlert({ message, tone = "error" }: { message?: string | undefined; tone?: "error" | "success" }) {
  if (!message) return null;
  return (
    <p className={`alert alert-${tone}`} role={tone === "error" ? "alert" : "status"}>
      {message}
    </p>
  );
}
