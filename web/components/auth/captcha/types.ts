import type { RefObject } from "react";

/** What a form can do to its widget: tokens count once, so after a refusal it asks anew. */
export interface CaptchaControls {
  reset(): void;
}

/** The props of each provider's widget: the same for all three. */
export interface ProviderWidgetProps {
  siteKey: string;
  /** The provider's token for the server, once the person passed the check. */
  onToken: (token: string) => void;
  /** The token expired (or was taken back): none to send until the next one. */
  onLapse: () => void;
  /** The widget or its script failed. */
  onFail: () => void;
  controls: RefObject<CaptchaControls | null>;
}
