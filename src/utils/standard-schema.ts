// The Standard Schema and Standard JSON Schema interfaces, inlined (types only) so any
// library implementing them works without an adapter package.

export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

export declare namespace StandardSchemaV1 {
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema?: JsonSchemaConverter;
  }
  type Result<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<Issue> };
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
  }
  type InferOutput<S extends StandardSchemaV1> = NonNullable<S["~standard"]["types"]>["output"];
  type InferInput<S extends StandardSchemaV1> = NonNullable<S["~standard"]["types"]>["input"];
}

/** Standard JSON Schema: the schema writes its own JSON Schema, for the input or the output side. */
export interface JsonSchemaConverter {
  readonly input: (options: { target: string }) => Record<string, unknown>;
  readonly output: (options: { target: string }) => Record<string, unknown>;
}

/** A Standard Schema that also implements Standard JSON Schema: it validates and describes itself. */
export interface StandardJsonSchema<Input = unknown, Output = Input> extends StandardSchemaV1<Input, Output> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output> & { readonly jsonSchema: JsonSchemaConverter };
}
