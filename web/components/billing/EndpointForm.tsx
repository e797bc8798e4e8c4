"use client";
import { billing } from "@/lib/billing";
import { useT } from "@/lib/i18n/billing";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { FormAlert } from "../FormAlert";
import { blankEndpoint, endpointChecks, EndpointFields, eventTypesOf } from "./EndpointFields";
import { refreshBilling } from "./hooks";

export { eventTypesOf };

/** Registers an endpoint for the organization. */
export function EndpointForm({ organizationId }: { organizationId: string }) {
  const t = useT();
  const form = useForm(blankEndpoint, endpointChecks);
  const submit = form.onSubmit(
    () =>
      billing.createEndpoint(organizationId, {
        url: form.values.url.trim(),
        description: form.values.description.trim(),
        eventTypes: eventTypesOf(form.values.eventTypes),
        polarSigning: form.values.signing === "polar",
      }),
    async (endpoint) => {
      form.reset();
      form.setNotice({ tone: "success", text: t("endpointForm.added", { url: endpoint?.url ?? "" }) });
      await refreshBilling();
    },
  );
  return (
    <form method="post" className="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="endpoint-form-title">
      <h2 id="endpoint-form-title">{t("endpointForm.title")}</h2>
      <p className="muted">{t("endpointForm.intro")}</p>
      <FormAlert message={form.notice?.text} tone={form.notice?.tone} />
      <EndpointFields form={form} />
      <div className="actions">
        <Button type="submit" busy={form.busy} busyLabel={t("endpointForm.submitting")}>
          {t("endpointForm.submit")}
        </Button>
      </div>
    </form>
  );
}
