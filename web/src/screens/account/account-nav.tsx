import { SubNav } from "../../components/widgets";

export function AccountNav() {
  return (
    <SubNav
      label="Account"
      items={[
        ["/account", "Profile"],
        ["/account/security", "Two-factor authentication"],
        ["/account/sessions", "Sessions"],
        ["/account/data", "Data and deletion"],
      ]}
    />
  );
}
