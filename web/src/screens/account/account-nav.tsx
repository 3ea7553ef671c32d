import { SubNav } from "../../components/part2-ui";

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
