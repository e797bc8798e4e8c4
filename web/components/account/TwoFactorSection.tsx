"use client";
import { useEffect, useRef, useState } from "react";
import { authClient } from "@/lib/auth-client";
import type { ApiError } from "@/lib/errors";
import { useT } from "@/lib/i18n/account";
import { rich } from "@/lib/i18n/rich";
import { required } from "@/lib/rules";
import { refreshSession } from "@/lib/session";
import { useForm } from "@/lib/useForm";
import { Button } from "../Button";
import { Field } from "../Field";
import { FormAlert } from "../FormAlert";
import { BackupCodes } from "./BackupCodes";
import { TotpSetup } from "./TotpSetup";

type Action = "regenerate" | "disable";
type Step =
  | { kind: "idle" }
  | { kind: "password"; action: Action }
  | { kind: "setup"; totpURI: string; backupCodes: string[] }
  /** `renewed`: codes that replace earlier ones (the title says they are new). */
  | { kind: "codes"; codes: string[]; renewed: boolean };

/**
 * Two-step verification: turning it on (password, then the authenticator app, then the backup
 * codes, shown once), and while it is on, new backup codes or turning it off (each asks for
 * the password again).
 */
export function TwoFactorSection({ enabled }: { enabled: boolean }) {
  const t = useT();
  const [step, setStep] = useState<Step>({ kind: "idle" });
  // What just changed, worded at render time (the language can change meanwhile).
  const [notice, setNotice] = useState<"on" | "off">();
  const heading = useRef<HTMLHeadingElement>(null);
  // Back to the section's start; the focus too, as the part that had it is gone.
  const idle = () => {
    setStep({ kind: "idle" });
    heading.current?.focus();
  };

  const open = (action: Action) => {
    setNotice(undefined);
    setStep({ kind: "password", action });
  };

  return (
    <section className="card form" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title" ref={heading} tabIndex={-1}>
        {t("twoFactor.title")}
      </h2>
      <p className="muted" data-testid="two-factor-status">
        {rich(t(enabled ? "twoFactor.statusOn" : "twoFactor.statusOff"), { strong: (text) => <strong>{text}</strong> })}
      </p>
      <FormAlert message={notice === "on" ? t("twoFactor.isOn") : notice === "off" ? t("twoFactor.isOff") : undefined} tone="success" />
      {step.kind === "codes" ? (
        <BackupCodes codes={step.codes} title={step.renewed ? t("backupCodes.newTitle") : t("backupCodes.title")} onDone={idle} />
      ) : step.kind === "setup" ? (
        <TotpSetup
          totpURI={step.totpURI}
          onCancel={idle}
          onConfirmed={() => {
            setNotice("on");
            setStep({ kind: "codes", codes: step.backupCodes, renewed: false });
          }}
        />
      ) : !enabled ? (
        <PasswordForm
          label={t("twoFactor.turnOn")}
          busyLabel={t("twoFactor.turningOn")}
          send={(password) => authClient.twoFactor.enable({ password })}
          onDone={(data) => {
            if (data?.method !== "totp") return;
            setStep({ kind: "setup", totpURI: data.totpURI, backupCodes: data.backupCodes });
            // The steps that follow start under the heading.
            heading.current?.focus();
          }}
        />
      ) : step.kind === "password" && step.action === "regenerate" ? (
        <PasswordForm
          label={t("twoFactor.regenerate")}
          busyLabel={t("twoFactor.regenerating")}
          hint={t("twoFactor.regenerateHint")}
          send={(password) => authClient.twoFactor.generateBackupCodes({ password })}
          onDone={(data) => {
            if (data) setStep({ kind: "codes", codes: data.backupCodes, renewed: true });
          }}
          onCancel={idle}
        />
      ) : step.kind === "password" ? (
        <PasswordForm
          label={t("twoFactor.turnOffConfirm")}
          busyLabel={t("twoFactor.turningOff")}
          tone="danger"
          send={(password) => authClient.twoFactor.disable({ password })}
          onDone={async () => {
            await refreshSession();
            idle();
            setNotice("off");
          }}
          onCancel={idle}
        />
      ) : (
        <div className="actions">
          <Button tone="secondary" busy={false} onClick={() => open("regenerate")}>
            {t("twoFactor.regenerate")}
          </Button>
          <Button tone="danger" busy={false} onClick={() => open("disable")}>
            {t("twoFactor.turnOff")}
          </Button>
        </div>
      )}
    </section>
  );
}

interface PasswordFormProps<T> {
  /** The form's name and its button's. */
  label: string;
  busyLabel: string;
  hint?: string;
  tone?: "primary" | "danger";
  send: (password: string) => Promise<{ data: T | null; error: ApiError | null }>;
  onDone: (data: T | null) => void | Promise<void>;
  /** Given when the form opened on request: it then takes the focus, and can be closed. */
  onCancel?: () => void;
}

/** The password again, before a change to the second factor. */
function PasswordForm<T>({ label, busyLabel, hint, tone = "primary", send, onDone, onCancel }: PasswordFormProps<T>) {
  const t = useT();
  const form = useForm({ password: "" }, { password: required(() => t("twoFactor.passwordRequired")) });
  const submit = form.onSubmit(() => send(form.values.password), onDone);
  const opened = Boolean(onCancel);
  useEffect(() => {
    if (opened) form.focus("password");
  }, [opened]);

  return (
    <form method="post" className="form" onSubmit={(e) => void submit(e)} noValidate aria-label={label}>
      <FormAlert message={form.notice?.text} />
      <Field
        label={t("twoFactor.password")}
        type="password"
        autoComplete="current-password"
        required
        hint={hint}
        {...form.field("password")}
        onBlur={undefined}
      />
      <div className="actions">
        <Button type="submit" tone={tone} busy={form.busy} busyLabel={busyLabel}>
          {label}
        </Button>
        {onCancel ? (
          <Button tone="secondary" busy={false} onClick={onCancel}>
            {t("twoFactor.cancel")}
          </Button>
        ) : null}
      </div>
    </form>
  );
}
