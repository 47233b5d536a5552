// The lint of openband's TypeScript packages (sdk-ts, openclaw-channel): eslint's recommended
// rules plus typescript-eslint's type-aware strict set. `lintConfig(import.meta.dirname)`.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export function lintConfig(root) {
  return tseslint.config(
    { ignores: ["dist/", "dist-check/", "node_modules/"] },
    js.configs.recommended,
    ...tseslint.configs.strictTypeChecked,
    {
      languageOptions: {
        parserOptions: { projectService: true, tsconfigRootDir: root },
      },
      rules: {
        "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
        "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
        // node:test's describe/it return promises the runner itself awaits.
        "@typescript-eslint/no-floating-promises": [
          "error",
          { allowForKnownSafeCalls: [{ from: "package", name: ["describe", "it", "test", "suite"], package: "node:test" }] },
        ],
      },
    },
    { files: ["*.js"], ...tseslint.configs.disableTypeChecked },
  );
}
